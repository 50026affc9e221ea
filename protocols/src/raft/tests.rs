//! Handler unit tests with `TestContext`, no kernel.
