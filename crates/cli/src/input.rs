//! Input of one item per line (rays, points): opened from a file or standard input, read in
//! bounded chunks parsed in parallel, each chunk answered and written before the next is read.

use std::io::{BufRead, Write};

use anyhow::{anyhow, bail, Context, Result};
use rayon::prelude::*;

/// How many lines are read, answered in parallel and written at a time: enough to keep
/// every thread busy, small enough that memory stays a few megabytes for any input.
pub const CHUNK_LINES: usize = 1 << 16;

/// The `N` numbers of a line separated by white space, each read by `number`; `None` for a
/// blank line or a comment (`#` first). `layout` names the numbers in the error for a line
/// with too few or too many (`ox oy oz dx dy dz`).
///
/// # Errors
/// A line with another count of numbers than `N`, or `number`'s error for a word.
pub fn numbers<const N: usize, F: Copy + Default>(
    line: &str,
    layout: &str,
    number: impl Fn(&str) -> Result<F>,
) -> Result<Option<[F; N]>> {
    let text = line.trim();
    if text.is_empty() || text.starts_with('#') {
        return Ok(None);
    }
    let mut numbers = [F::default(); N];
    let mut count = 0;
    for word in text.split_whitespace() {
        if count < N {
            numbers[count] = number(word)?;
        }
        count += 1;
    }
    if count != N {
        bail!("expected {N} numbers `{layout}`, found {count}");
    }
    Ok(Some(numbers))
}

/// A word as an `f32`; `nan` and `inf` are numbers.
///
/// # Errors
/// A word that is not a number, quoted (cut short if long).
pub fn number(word: &str) -> Result<f32> {
    word.parse()
        .map_err(|_| anyhow!("`{}` is not a number", excerpt(word)))
}

/// A word as an `f64`, every digit kept (coordinates far from the origin); `nan` and `inf`
/// are numbers.
///
/// # Errors
/// A word that is not a number, quoted (cut short if long).
pub fn number_f64(word: &str) -> Result<f64> {
    word.parse()
        .map_err(|_| anyhow!("`{}` is not a number", excerpt(word)))
}

/// A word as a finite `f32`.
///
/// # Errors
/// A word that is not a number, or not a finite one.
pub fn finite_number(word: &str) -> Result<f32> {
    let value = number(word)?;
    if !value.is_finite() {
        bail!("`{}` is not a finite number", excerpt(word));
    }
    Ok(value)
}

/// Cuts quoted input short, so a megabyte of garbage does not become a megabyte message.
fn excerpt(text: &str) -> String {
    const MAX_CHARS: usize = 32;
    match text.char_indices().nth(MAX_CHARS) {
        Some((cut, _)) => format!("{}...", &text[..cut]),
        None => text.to_owned(),
    }
}

/// The items of one chunk of input, in order, and the error that ended it early, if any.
pub struct Chunk<T> {
    /// The items of the chunk's lines, in order, up to the bad line if there is one.
    pub items: Vec<T>,
    /// The error of the line (or the read) that ended the input early, with its line.
    pub error: Option<anyhow::Error>,
}

/// Reads lines in chunks of at most `chunk_lines`, parsing each chunk in parallel with
/// `parse`, which answers `None` for a line without an item (blank, comment). Memory stays
/// bounded by the chunk, whatever the input's length.
pub struct LineReader<R, P> {
    input: R,
    /// Errors say "reading {what} from {name}: line N".
    what: &'static str,
    name: String,
    parse: P,
    chunk_lines: usize,
    /// Line buffers, reused from chunk to chunk.
    lines: Vec<String>,
    /// Lines read so far.
    line_number: usize,
    finished: bool,
}

impl<P, T> LineReader<Box<dyn BufRead>, P>
where
    P: Fn(&str) -> Result<Option<T>> + Sync,
    T: Send,
{
    /// A reader of the `what` (`rays`, `points`) in the file at `path`, or in standard input
    /// for `-`, in chunks of [`CHUNK_LINES`].
    ///
    /// # Errors
    /// A file that cannot be opened.
    pub fn open(path: &str, what: &'static str, parse: P) -> Result<Self> {
        if path == "-" {
            let input = Box::new(std::io::stdin().lock());
            return Ok(Self::new(
                input,
                what,
                "standard input".into(),
                parse,
                CHUNK_LINES,
            ));
        }
        let file =
            std::fs::File::open(path).with_context(|| format!("opening {what} file {path}"))?;
        let input = Box::new(std::io::BufReader::with_capacity(1 << 16, file));
        Ok(Self::new(input, what, path.into(), parse, CHUNK_LINES))
    }
}

impl<R, P, T> LineReader<R, P>
where
    R: BufRead,
    P: Fn(&str) -> Result<Option<T>> + Sync,
    T: Send,
{
    /// A reader of the `what` (`rays`, `points`) in `input`, called `name` in error messages.
    pub fn new(input: R, what: &'static str, name: String, parse: P, chunk_lines: usize) -> Self {
        Self {
            input,
            what,
            name,
            parse,
            chunk_lines: chunk_lines.max(1),
            lines: Vec::new(),
            line_number: 0,
            finished: false,
        }
    }

    /// The next chunk of items; `None` at the end of the input. A chunk whose `error` is set
    /// is the last: it holds the items before the bad line.
    pub fn next_chunk(&mut self) -> Option<Chunk<T>> {
        if self.finished {
            return None;
        }
        let first_line = self.line_number + 1;
        let mut filled = 0;
        let mut read_error = None;
        while filled < self.chunk_lines {
            if filled == self.lines.len() {
                self.lines.push(String::new());
            }
            let buffer = &mut self.lines[filled];
            buffer.clear();
            match self.input.read_line(buffer) {
                Ok(0) => {
                    self.finished = true;
                    break;
                }
                Ok(_) => filled += 1,
                Err(err) => {
                    read_error =
                        Some(anyhow::Error::new(err).context(self.at(first_line + filled)));
                    break;
                }
            }
        }
        self.line_number += filled;

        let parse = &self.parse;
        let parsed: Vec<Result<Option<T>>> = self.lines[..filled]
            .par_iter()
            .map(|line| parse(line))
            .collect();
        let mut items = Vec::with_capacity(parsed.len());
        let mut error = None;
        for (offset, result) in parsed.into_iter().enumerate() {
            match result {
                Ok(Some(item)) => items.push(item),
                Ok(None) => {}
                Err(err) => {
                    error = Some(err.context(self.at(first_line + offset)));
                    break;
                }
            }
        }
        let error = error.or(read_error);
        if error.is_some() {
            self.finished = true;
        }
        if items.is_empty() && error.is_none() && self.finished {
            return None;
        }
        Some(Chunk { items, error })
    }

    /// Where an error happened, for its context.
    fn at(&self, line: usize) -> String {
        format!("reading {} from {}: line {line}", self.what, self.name)
    }

    /// Answers every chunk with `answer` (one text per item, in order) and writes the texts;
    /// a bad line ends the run with its error, after the answers of the lines before it.
    ///
    /// # Errors
    /// The first bad line's error, or a failure to write.
    pub fn answer_each(
        self,
        out: &mut impl Write,
        answer: impl Fn(&[T]) -> Vec<String>,
    ) -> Result<()> {
        self.try_answer_each(out, |items| Ok(answer(items)))
    }

    /// [`LineReader::answer_each`] with answers that can fail (a GPU that fails): the first
    /// failure ends the run, after the answers of the chunks before it.
    ///
    /// # Errors
    /// The first bad line's error, `answer`'s first error, or a failure to write.
    pub fn try_answer_each(
        mut self,
        out: &mut impl Write,
        answer: impl Fn(&[T]) -> Result<Vec<String>>,
    ) -> Result<()> {
        while let Some(chunk) = self.next_chunk() {
            for text in answer(&chunk.items)? {
                out.write_all(text.as_bytes())?;
            }
            if let Some(err) = chunk.error {
                out.flush()?;
                return Err(err);
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The first number of each line, or the error.
    fn read_all(text: &str, chunk_lines: usize) -> (Vec<f32>, Option<String>) {
        let parse = |line: &str| Ok(numbers::<2, f32>(line, "a b", number)?.map(|[a, _]| a));
        let mut reader = LineReader::new(
            text.as_bytes(),
            "pairs",
            "pairs.txt".into(),
            parse,
            chunk_lines,
        );
        let mut items = Vec::new();
        while let Some(chunk) = reader.next_chunk() {
            items.extend(chunk.items);
            if let Some(err) = chunk.error {
                return (items, Some(format!("{err:#}")));
            }
        }
        (items, None)
    }

    #[test]
    fn numbers_are_white_space_separated() {
        let read = |line| numbers::<3, f32>(line, "x y z", number);
        assert_eq!(read(" 1 2\t-3.5e0 \r\n").unwrap(), Some([1.0, 2.0, -3.5]));
        assert_eq!(read("   \n").unwrap(), None);
        assert_eq!(read("# a comment").unwrap(), None);
        assert!(read("nan 0 inf").unwrap().unwrap()[0].is_nan());
        let few = read("1 2").unwrap_err().to_string();
        assert_eq!(few, "expected 3 numbers `x y z`, found 2");
        let many = read("1 2 3 4").unwrap_err().to_string();
        assert_eq!(many, "expected 3 numbers `x y z`, found 4");
        assert_eq!(
            read("1 x 3").unwrap_err().to_string(),
            "`x` is not a number"
        );
        assert!(read("1,2,3").is_err());
        let long = "y".repeat(100);
        let message = read(&format!("1 {long} 3")).unwrap_err().to_string();
        assert_eq!(message, format!("`{}...` is not a number", &long[..32]));
    }

    #[test]
    fn finite_numbers_reject_nan_and_infinities() {
        assert_eq!(finite_number("-2.5").unwrap(), -2.5);
        for word in ["nan", "NaN", "inf", "-infinity", "1e39"] {
            let message = finite_number(word).unwrap_err().to_string();
            assert_eq!(message, format!("`{word}` is not a finite number"));
        }
        assert_eq!(
            finite_number("two").unwrap_err().to_string(),
            "`two` is not a number"
        );
    }

    #[test]
    fn chunks_keep_order_and_name_the_bad_line() {
        let mut text = String::new();
        for i in 0..10 {
            text.push_str(&format!("{i} 0\n"));
            if i == 4 {
                text.push_str("\n# comment\n");
            }
        }
        for chunk_lines in [1, 3, 100] {
            let (items, err) = read_all(&text, chunk_lines);
            assert!(err.is_none());
            assert_eq!(items, (0..10).map(|i| i as f32).collect::<Vec<_>>());
        }
        let bad = "0 0\n1 0\n2\n3 0\n";
        for chunk_lines in [1, 2, 100] {
            let (items, err) = read_all(bad, chunk_lines);
            assert_eq!(items, [0.0, 1.0], "the items before the bad line are kept");
            assert_eq!(
                err.unwrap(),
                "reading pairs from pairs.txt: line 3: expected 2 numbers `a b`, found 1"
            );
        }
    }

    #[test]
    fn invalid_utf8_is_an_error_with_a_line() {
        let bytes: &[u8] = b"0 1\n\xff\xfe 1\n";
        let parse = |line: &str| numbers::<2, _>(line, "a b", number);
        let mut reader = LineReader::new(bytes, "pairs", "stdin".into(), parse, 10);
        let chunk = reader.next_chunk().unwrap();
        assert_eq!(chunk.items.len(), 1);
        let err = format!("{:#}", chunk.error.unwrap());
        assert!(err.starts_with("reading pairs from stdin: line 2"), "{err}");
        assert!(reader.next_chunk().is_none());
    }

    #[test]
    fn answers_are_written_in_order_up_to_the_bad_line() {
        let parse = |line: &str| Ok(numbers::<1, _>(line, "a", number)?.map(|[a]| a));
        let answer = |items: &[f32]| items.iter().map(|a| format!("{}\n", a * 2.0)).collect();
        let reader = LineReader::new(&b"1\n2\n3\n"[..], "numbers", "n".into(), parse, 2);
        let mut out = Vec::new();
        reader.answer_each(&mut out, answer).unwrap();
        assert_eq!(out, b"2\n4\n6\n");
        let reader = LineReader::new(&b"1\n2\nx\n4\n"[..], "numbers", "n".into(), parse, 2);
        let mut out = Vec::new();
        let err = reader.answer_each(&mut out, answer).unwrap_err();
        assert_eq!(out, b"2\n4\n");
        assert_eq!(
            format!("{err:#}"),
            "reading numbers from n: line 3: `x` is not a number"
        );
    }
}
