mod ring;
