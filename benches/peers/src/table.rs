//! A table of text cells, printed aligned for the console or as Markdown for the report.

/// A table as cells; the first row is the header.
pub struct Table {
    /// The cells, row by row.
    pub rows: Vec<Vec<String>>,
}

impl Table {
    /// Aligned text: the first column to the left, the others to the right.
    pub fn text(&self) -> String {
        let columns = self.rows.iter().map(Vec::len).max().unwrap_or(0);
        let widths: Vec<usize> = (0..columns)
            .map(|c| {
                self.rows
                    .iter()
                    .filter_map(|row| row.get(c))
                    .map(|cell| cell.chars().count())
                    .max()
                    .unwrap_or(0)
            })
            .collect();
        let mut out = String::new();
        for row in &self.rows {
            let mut line = String::new();
            for (c, cell) in row.iter().enumerate() {
                let pad = widths[c] - cell.chars().count();
                if c == 0 {
                    line.push_str(cell);
                    line.push_str(&" ".repeat(pad));
                } else {
                    line.push_str("  ");
                    line.push_str(&" ".repeat(pad));
                    line.push_str(cell);
                }
            }
            out.push_str("  ");
            out.push_str(line.trim_end());
            out.push('\n');
        }
        out
    }

    /// A Markdown table, numbers aligned right.
    pub fn markdown(&self) -> String {
        let mut out = String::new();
        for (i, row) in self.rows.iter().enumerate() {
            out.push_str("| ");
            out.push_str(&row.join(" | "));
            out.push_str(" |\n");
            if i == 0 {
                let marks: Vec<&str> = (0..row.len())
                    .map(|c| if c == 0 { ":--" } else { "--:" })
                    .collect();
                out.push_str("| ");
                out.push_str(&marks.join(" | "));
                out.push_str(" |\n");
            }
        }
        out
    }
}
