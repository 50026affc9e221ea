//! Pictures every command draws: a small hand-written SVG line chart (no fonts needed, every
//! text escaped) and the one way a plot is written to its file. `dsim ring`, `dsim cost` and
//! `dsim explore` share it, so no command module reaches into another for a picture.

use crate::exit::CliError;
use std::fmt::Write;
use std::path::PathBuf;
// SVG text and attributes escape as HTML's do.
use traces::render::html::escape_html as escape;

/// One named line of a chart.
pub struct Series {
    /// The legend entry.
    pub name: String,
    /// (x, y) points in drawing order.
    pub points: Vec<(f64, f64)>,
    /// Dashed lines mark references (an ideal, a floor).
    pub dashed: bool,
}

impl Series {
    /// A line called `name` through `points`.
    pub fn line(name: impl Into<String>, points: Vec<(f64, f64)>, dashed: bool) -> Series {
        Series {
            name: name.into(),
            points,
            dashed,
        }
    }

    /// A line called `name` through the point `point(row)` of every row of a table.
    pub fn of<R>(
        name: impl Into<String>,
        rows: &[R],
        point: impl Fn(&R) -> (f64, f64),
        dashed: bool,
    ) -> Series {
        Series::line(name, rows.iter().map(point).collect(), dashed)
    }
}

/// A line chart with optional logarithmic axes.
pub struct Chart {
    /// Title at the top.
    pub title: String,
    /// Label under the x axis.
    pub x_label: String,
    /// Label beside the y axis.
    pub y_label: String,
    /// Logarithmic x axis.
    pub log_x: bool,
    /// Logarithmic y axis.
    pub log_y: bool,
    /// The lines.
    pub series: Vec<Series>,
}

const COLORS: [&str; 6] = [
    "#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#555555",
];

fn ticks(lo: f64, hi: f64, log: bool) -> Vec<f64> {
    if log {
        let (a, b) = (lo.log10().floor() as i32, hi.log10().ceil() as i32);
        return (a..=b).map(|e| 10f64.powi(e)).collect();
    }
    let span = (hi - lo).max(1e-12);
    let raw = span / 5.0;
    let mag = 10f64.powf(raw.log10().floor());
    let step = [1.0, 2.0, 5.0, 10.0]
        .iter()
        .map(|m| m * mag)
        .find(|s| span / s <= 6.0)
        .unwrap_or(10.0 * mag);
    let mut t = (lo / step).floor() * step;
    let mut out = Vec::new();
    while t <= hi + step * 1e-9 {
        out.push(t);
        t += step;
    }
    out
}

fn label(v: f64) -> String {
    if v != 0.0 && (v.abs() < 0.01 || v.abs() >= 100_000.0) {
        format!("{v:.0e}")
    } else if v.fract() == 0.0 {
        format!("{v:.0}")
    } else {
        format!("{v}").chars().take(6).collect::<String>()
    }
}

impl Chart {
    /// The chart as an SVG document.
    pub fn render(&self) -> String {
        let (w, h) = (720.0, 440.0);
        let (left, right, top, bottom) = (80.0, 180.0, 40.0, 60.0);
        let pts = self.series.iter().flat_map(|s| s.points.iter());
        let keep = |v: f64, log: bool| v.is_finite() && (!log || v > 0.0);
        let xs: Vec<f64> = pts
            .clone()
            .map(|p| p.0)
            .filter(|&v| keep(v, self.log_x))
            .collect();
        let ys: Vec<f64> = pts.map(|p| p.1).filter(|&v| keep(v, self.log_y)).collect();
        let bounds = |v: &[f64], log: bool| {
            let lo = v.iter().copied().fold(f64::INFINITY, f64::min);
            let hi = v.iter().copied().fold(f64::NEG_INFINITY, f64::max);
            if !lo.is_finite() {
                return (if log { 1.0 } else { 0.0 }, 1.0);
            }
            if log {
                (
                    10f64.powf(lo.log10().floor()),
                    10f64.powf(hi.log10().ceil().max(lo.log10().floor() + 1.0)),
                )
            } else {
                let lo = lo.min(0.0);
                (lo, if hi > lo { hi } else { lo + 1.0 })
            }
        };
        let (x0, x1) = bounds(&xs, self.log_x);
        let (y0, y1) = bounds(&ys, self.log_y);
        let (pw, ph) = (w - left - right, h - top - bottom);
        let fx = |x: f64| {
            let t = if self.log_x {
                (x.log10() - x0.log10()) / (x1.log10() - x0.log10())
            } else {
                (x - x0) / (x1 - x0)
            };
            left + t * pw
        };
        let fy = |y: f64| {
            let t = if self.log_y {
                (y.log10() - y0.log10()) / (y1.log10() - y0.log10())
            } else {
                (y - y0) / (y1 - y0)
            };
            top + ph - t * ph
        };
        let mut s = String::new();
        let _ = writeln!(
            s,
            r#"<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" viewBox="0 0 {w} {h}" font-family="sans-serif" font-size="12">"#
        );
        let _ = writeln!(s, r#"<rect width="{w}" height="{h}" fill="white"/>"#);
        let _ = writeln!(
            s,
            r#"<text x="{}" y="22" text-anchor="middle" font-size="15">{}</text>"#,
            left + pw / 2.0,
            escape(&self.title)
        );
        for t in ticks(x0, x1, self.log_x) {
            let x = fx(t);
            let _ = writeln!(
                s,
                r##"<line x1="{x:.1}" y1="{top}" x2="{x:.1}" y2="{:.1}" stroke="#e5e5e5"/><text x="{x:.1}" y="{:.1}" text-anchor="middle">{}</text>"##,
                top + ph,
                top + ph + 16.0,
                escape(&label(t))
            );
        }
        for t in ticks(y0, y1, self.log_y) {
            let y = fy(t);
            let _ = writeln!(
                s,
                r##"<line x1="{left}" y1="{y:.1}" x2="{:.1}" y2="{y:.1}" stroke="#e5e5e5"/><text x="{:.1}" y="{:.1}" text-anchor="end">{}</text>"##,
                left + pw,
                left - 6.0,
                y + 4.0,
                escape(&label(t))
            );
        }
        let _ = writeln!(
            s,
            r##"<rect x="{left}" y="{top}" width="{pw}" height="{ph}" fill="none" stroke="#333"/>"##
        );
        let _ = writeln!(
            s,
            r#"<text x="{:.1}" y="{:.1}" text-anchor="middle">{}</text>"#,
            left + pw / 2.0,
            h - 18.0,
            escape(&self.x_label)
        );
        let _ = writeln!(
            s,
            r#"<text transform="translate(20 {:.1}) rotate(-90)" text-anchor="middle">{}</text>"#,
            top + ph / 2.0,
            escape(&self.y_label)
        );
        for (i, series) in self.series.iter().enumerate() {
            let color = COLORS[i % COLORS.len()];
            let path: Vec<String> = series
                .points
                .iter()
                .filter(|p| keep(p.0, self.log_x) && keep(p.1, self.log_y))
                .map(|&(x, y)| format!("{:.1},{:.1}", fx(x), fy(y)))
                .collect();
            let dash = if series.dashed {
                r#" stroke-dasharray="6 4""#
            } else {
                ""
            };
            let _ = writeln!(
                s,
                r#"<polyline points="{}" fill="none" stroke="{color}" stroke-width="2"{dash}/>"#,
                path.join(" ")
            );
            for p in &path {
                let (x, y) = p.split_once(',').unwrap_or(("0", "0"));
                let _ = writeln!(s, r#"<circle cx="{x}" cy="{y}" r="3" fill="{color}"/>"#);
            }
            let ly = top + 14.0 + 20.0 * i as f64;
            let lx = left + pw + 14.0;
            let _ = writeln!(
                s,
                r#"<line x1="{lx}" y1="{ly}" x2="{}" y2="{ly}" stroke="{color}" stroke-width="2"{dash}/><text x="{}" y="{}">{}</text>"#,
                lx + 24.0,
                lx + 30.0,
                ly + 4.0,
                escape(&series.name)
            );
        }
        s.push_str("</svg>\n");
        s
    }
}

/// Writes `chart` to `path` when a plot was asked for, saying where on standard error.
pub fn write_plot(path: Option<&PathBuf>, chart: &Chart) -> Result<(), CliError> {
    if let Some(path) = path {
        crate::output::write_atomically(path, &chart.render())?;
        eprintln!("plot written to {}", path.display());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_is_escaped_and_log_axes_skip_non_positive_points() {
        let chart = Chart {
            title: "a < b & \"c\"".into(),
            x_label: "x".into(),
            y_label: "y".into(),
            log_x: false,
            log_y: true,
            series: vec![Series {
                name: "<s>".into(),
                points: vec![(1.0, 0.5), (2.0, 0.0), (3.0, 0.01)],
                dashed: false,
            }],
        };
        let svg = chart.render();
        assert!(svg.contains("a &lt; b &amp; &quot;c&quot;"));
        assert!(svg.contains("&lt;s&gt;"));
        assert!(!svg.contains("NaN") && !svg.contains("inf"));
        assert_eq!(svg.matches("<circle").count(), 2);
    }
}
