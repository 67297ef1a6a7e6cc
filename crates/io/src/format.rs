//! The file formats meshcast reads, and telling them apart by name or content.

use std::fmt;
use std::path::Path;

/// A file format meshcast reads.
///
/// # Examples
/// ```
/// use meshcast_io::Format;
/// use std::path::Path;
///
/// assert_eq!(Format::from_extension(Path::new("scan.PLY")), Some(Format::Ply));
/// assert_eq!(Format::detect(b"ply\nformat ascii 1.0\n"), Some(Format::Ply));
/// assert_eq!(Format::detect(b"glTF\x02\0\0\0"), Some(Format::Gltf));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Format {
    /// Wavefront OBJ (`.obj`).
    Obj,
    /// glTF 2.0, as JSON (`.gltf`) or binary (`.glb`).
    Gltf,
    /// Stanford PLY (`.ply`), ASCII or binary.
    Ply,
    /// STL (`.stl`), ASCII or binary.
    Stl,
    /// A meshcast cache: a mesh with its hierarchy (written by
    /// [`MeshFiles::save`](crate::MeshFiles::save), `.mcache`).
    Cache,
}

/// The extension users are advised to give cache files ([`MeshFiles::save`](crate::MeshFiles::save)).
pub const CACHE_EXTENSION: &str = "mcache";

/// The first eight bytes of every cache file.
pub const CACHE_MAGIC: [u8; 8] = *b"MESHCAST";

impl Format {
    /// Every format, in the order [`Format::detect`] tries them.
    pub const ALL: [Format; 5] = [
        Format::Cache,
        Format::Gltf,
        Format::Ply,
        Format::Stl,
        Format::Obj,
    ];

    /// The format a file's extension names (case-insensitive), if any.
    pub fn from_extension(path: &Path) -> Option<Self> {
        let extension = path.extension()?.to_str()?.to_ascii_lowercase();
        match extension.as_str() {
            "obj" => Some(Self::Obj),
            "gltf" | "glb" => Some(Self::Gltf),
            "ply" => Some(Self::Ply),
            "stl" => Some(Self::Stl),
            CACHE_EXTENSION => Some(Self::Cache),
            _ => None,
        }
    }

    /// The format these bytes (a whole file, or at least its first kilobyte and its length)
    /// look like: a cache's or GLB's magic number, a PLY header, a binary STL whose size
    /// matches its triangle count, an ASCII STL's `solid` and `facet`, a glTF JSON object,
    /// or OBJ statements. `None` when nothing matches.
    pub fn detect(bytes: &[u8]) -> Option<Self> {
        Self::ALL.into_iter().find(|format| format.accepts(bytes))
    }

    /// Whether `bytes` look like this format (see [`Format::detect`]): the test
    /// [`Format::detect`] makes of each format in turn.
    pub fn accepts(self, bytes: &[u8]) -> bool {
        let text = text_start(bytes);
        match self {
            Self::Cache => bytes.starts_with(&CACHE_MAGIC),
            Self::Gltf => bytes.starts_with(b"glTF") || text.starts_with(b"{"),
            Self::Ply => bytes.starts_with(b"ply\n") || bytes.starts_with(b"ply\r\n"),
            Self::Stl => is_binary_stl(bytes) || is_ascii_stl(text),
            Self::Obj => looks_like_obj(text),
        }
    }

    /// The cargo feature of this crate (and of `meshcast`) that reads this format.
    pub fn feature(self) -> &'static str {
        match self {
            Self::Obj => "obj",
            Self::Gltf => "gltf",
            Self::Ply => "ply",
            Self::Stl => "stl",
            Self::Cache => "the cache is always read",
        }
    }
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::Obj => "OBJ",
            Self::Gltf => "glTF",
            Self::Ply => "PLY",
            Self::Stl => "STL",
            Self::Cache => "meshcast cache",
        })
    }
}

/// The bytes after a UTF-8 byte order mark and leading white space: where a text format's
/// first statement starts (also the STL reader's test).
pub(crate) fn text_start(bytes: &[u8]) -> &[u8] {
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    let start = bytes
        .iter()
        .position(|b| !b.is_ascii_whitespace())
        .unwrap_or(bytes.len());
    &bytes[start..]
}

/// A binary STL: an 80-byte header, a triangle count, and 50 bytes per triangle, exactly.
fn is_binary_stl(bytes: &[u8]) -> bool {
    let Some(count) = bytes.get(80..84) else {
        return false;
    };
    let count = u32::from_le_bytes([count[0], count[1], count[2], count[3]]);
    bytes.len() as u64 == 84 + 50 * u64::from(count)
}

/// An ASCII STL: `solid`, then a `facet` soon after.
fn is_ascii_stl(text: &[u8]) -> bool {
    let head = &text[..text.len().min(1024)];
    head.get(..5)
        .is_some_and(|word| word.eq_ignore_ascii_case(b"solid"))
        && head.windows(5).any(|w| w.eq_ignore_ascii_case(b"facet"))
}

/// OBJ: the first line that is not a comment starts with an OBJ statement.
fn looks_like_obj(text: &[u8]) -> bool {
    const KEYWORDS: [&[u8]; 9] = [
        b"v", b"vt", b"vn", b"f", b"o", b"g", b"s", b"mtllib", b"usemtl",
    ];
    let first = text
        .split(|&b| b == b'\n')
        .map(text_start)
        .find(|line| !line.is_empty() && !line.starts_with(b"#"));
    first.is_some_and(|line| {
        let keyword = line
            .split(|b| b.is_ascii_whitespace())
            .next()
            .unwrap_or_default();
        KEYWORDS.contains(&keyword)
    })
}
