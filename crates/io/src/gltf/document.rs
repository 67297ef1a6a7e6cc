//! A glTF document and its buffers: the JSON (or GLB) parsed by the `gltf` crate, required
//! extensions refused, every buffer resolved to its bytes and checked against its declared
//! length.

use std::io::Read;
use std::path::Path;

use ::gltf::json;
use base64::Engine as _;

use super::malformed;
use crate::source::Source;
use crate::{Error, Place, Result};

/// The GLB header: magic, version, total length (glTF 2.0, section 4.4.2).
const GLB_HEADER_BYTES: usize = 12;

/// A parsed glTF file with the bytes of each of its buffers.
pub(super) struct Document {
    /// The JSON, unvalidated: every index in it is looked up with `get`.
    pub(super) root: json::Root,
    /// Buffer `i`'s bytes, exactly its declared `byteLength` of them.
    pub(super) buffers: Vec<Vec<u8>>,
    /// Node `i`'s transform as the JSON writes it, in `f64`: the `gltf` crate reads the
    /// numbers as `f32`, which rounds a georeferenced node's translation (Earth-centred,
    /// millions of metres) to half a metre.
    pub(super) transforms: Vec<NodeTransform>,
}

/// A node's transform numbers, read from the JSON in `f64` (glTF 2.0, section 5.25).
#[derive(Clone, Debug, Default)]
pub(super) struct NodeTransform {
    pub(super) matrix: Option<Vec<f64>>,
    pub(super) translation: Option<Vec<f64>>,
    pub(super) rotation: Option<Vec<f64>>,
    pub(super) scale: Option<Vec<f64>>,
}

impl Document {
    /// Parses `bytes` (a `.gltf` JSON file or a `.glb`) and loads its buffers.
    ///
    /// The `gltf` crate's validation is not used: in gltf-json 1.4.1 its primitive check
    /// indexes `root.accessors` with the POSITION attribute's index before the index is known
    /// to exist, so a hostile file makes it panic. Every index is looked up with
    /// `Root::get` here instead, and everything read is checked where it is read.
    pub(super) fn parse(bytes: &[u8], source: Source) -> Result<Self> {
        let bytes = glb_extent(bytes, source)?;
        let parsed = ::gltf::Gltf::from_slice_without_validation(bytes)
            .map_err(|error| parse_error(error, bytes, source))?;
        let root = parsed.document.into_json();
        let transforms = node_transforms(bytes, source)?;
        if let Some(name) = root.extensions_required.first() {
            return Err(Error::Unsupported {
                at: source.at(Place::File),
                what: format!("the required extension `{name}`"),
            });
        }
        let mut blob = parsed.blob;
        let buffers = root
            .buffers
            .iter()
            .enumerate()
            .map(|(index, buffer)| load_buffer(index, buffer, &mut blob, source))
            .collect::<Result<_>>()?;
        Ok(Self {
            root,
            buffers,
            transforms,
        })
    }
}

/// Every node's transform numbers in `f64`, from the JSON of `bytes` (a `.gltf` file or the
/// JSON chunk of a `.glb`, which the `gltf` crate has parsed already). A field that is not
/// an array of numbers is left out here; the `gltf` crate's reading of it stands.
fn node_transforms(bytes: &[u8], source: Source) -> Result<Vec<NodeTransform>> {
    let json = if bytes.starts_with(b"glTF") {
        ::gltf::binary::Glb::from_slice(bytes)
            .map_err(|error| malformed(source.at(Place::File), error.to_string()))?
            .json
    } else {
        std::borrow::Cow::Borrowed(bytes)
    };
    let value: serde_json::Value = serde_json::from_slice(&json)
        .map_err(|error| malformed(source.at(Place::File), error.to_string()))?;
    let numbers = |node: &serde_json::Value, field: &str| {
        let values = node.get(field)?.as_array()?;
        values.iter().map(serde_json::Value::as_f64).collect()
    };
    let nodes = value.get("nodes").and_then(serde_json::Value::as_array);
    Ok(nodes
        .into_iter()
        .flatten()
        .map(|node| NodeTransform {
            matrix: numbers(node, "matrix"),
            translation: numbers(node, "translation"),
            rotation: numbers(node, "rotation"),
            scale: numbers(node, "scale"),
        })
        .collect())
}

/// The bytes of a GLB file that its header counts (the whole slice for JSON), after checking
/// the header where the `gltf` crate would subtract from a length it has not checked.
fn glb_extent<'a>(bytes: &'a [u8], source: Source) -> Result<&'a [u8]> {
    if !bytes.starts_with(b"glTF") {
        return Ok(bytes);
    }
    let Some(header) = bytes.get(..GLB_HEADER_BYTES) else {
        return Err(Error::Truncated {
            at: source.at(Place::Byte(bytes.len() as u64)),
            expected: format!("a {GLB_HEADER_BYTES}-byte GLB header"),
        });
    };
    let word = |at: usize| {
        u32::from_le_bytes([header[at], header[at + 1], header[at + 2], header[at + 3]])
    };
    let (version, length) = (word(4), word(8) as usize);
    if version != 2 {
        return Err(Error::Unsupported {
            at: source.at(Place::Byte(4)),
            what: format!("GLB version {version} (only glTF 2.0 is read)"),
        });
    }
    if length < GLB_HEADER_BYTES {
        return Err(malformed(
            source.at(Place::Byte(8)),
            format!("the GLB header gives a total length of {length} bytes"),
        ));
    }
    bytes.get(..length).ok_or_else(|| Error::Truncated {
        at: source.at(Place::Byte(bytes.len() as u64)),
        expected: format!("{length} bytes, as the GLB header says"),
    })
}

/// The `gltf` crate's parse error, placed: a JSON error at its line (for a `.gltf` file),
/// a GLB error in the file.
fn parse_error(error: ::gltf::Error, bytes: &[u8], source: Source) -> Error {
    let glb = bytes.starts_with(b"glTF");
    match error {
        ::gltf::Error::Deserialize(json) if !glb && json.line() > 0 => {
            let at = source.at(Place::Line(json.line()));
            if json.is_eof() {
                Error::Truncated {
                    at,
                    expected: "the rest of the JSON document".into(),
                }
            } else {
                malformed(at, json.to_string())
            }
        }
        error => malformed(source.at(Place::File), error.to_string()),
    }
}

/// Buffer `index`'s bytes: the GLB binary chunk (the first buffer without a URI may use it),
/// a `data:` URI, or a file beside `source`; cut to the declared length, which they must
/// reach.
fn load_buffer(
    index: usize,
    buffer: &json::Buffer,
    blob: &mut Option<Vec<u8>>,
    source: Source,
) -> Result<Vec<u8>> {
    let at = || {
        source.at(Place::Element {
            kind: "buffer",
            index,
        })
    };
    let declared = buffer.byte_length.0;
    let mut data = match buffer.uri.as_deref() {
        None => blob.take().ok_or_else(|| {
            malformed(
                at(),
                "no URI, and no GLB binary chunk left to stand for it".to_string(),
            )
        })?,
        Some(uri) if uri.starts_with("data:") => decode_data_uri(uri)
            .map_err(|problem| malformed(at(), format!("cannot decode its data URI: {problem}")))?,
        Some(uri) => read_external(uri, declared, source).map_err(|error| match error {
            External::Unsupported(what) => Error::Unsupported { at: at(), what },
            External::Io(path, source) => Error::Io { path, source },
        })?,
    };
    if (data.len() as u64) < declared {
        return Err(Error::Truncated {
            at: at(),
            expected: format!("{declared} bytes (its byteLength), found {}", data.len()),
        });
    }
    // A GLB chunk is padded to four bytes; a longer data URI is tolerated the same way.
    data.truncate(declared as usize);
    Ok(data)
}

/// The bytes of a base64 `data:` URI (`data:[<media type>];base64,<data>`).
fn decode_data_uri(uri: &str) -> std::result::Result<Vec<u8>, String> {
    let (header, data) = uri
        .split_once(',')
        .ok_or_else(|| "no comma before the data".to_string())?;
    if !header.ends_with(";base64") {
        return Err("only base64 data URIs are read".into());
    }
    base64::engine::general_purpose::STANDARD
        .decode(data)
        .map_err(|error| error.to_string())
}

/// Why an external buffer could not be read.
enum External {
    /// No folder to look in, or a URI that is not a relative file reference.
    Unsupported(String),
    /// The file could not be read.
    Io(std::path::PathBuf, std::io::Error),
}

/// The first `declared` bytes (or fewer, if it is shorter) of the file `uri` names, relative
/// to the source's folder. Reading stops at the declared length, so a URI naming an endless
/// device cannot exhaust memory.
fn read_external(
    uri: &str,
    declared: u64,
    source: Source,
) -> std::result::Result<Vec<u8>, External> {
    let Some(folder) = source.folder() else {
        return Err(External::Unsupported(format!(
            "the external buffer `{uri}` (bytes in memory have no folder to find it in)"
        )));
    };
    let decoded = urlencoding::decode(uri).map_err(|_| {
        External::Unsupported(format!("the buffer URI `{uri}` (not UTF-8 once decoded)"))
    })?;
    let relative = Path::new(decoded.as_ref());
    if relative.is_absolute() || decoded.contains(':') {
        return Err(External::Unsupported(format!(
            "the buffer URI `{uri}` (only files relative to the glTF file are read)"
        )));
    }
    let path = folder.join(relative);
    let io = |error| External::Io(path.clone(), error);
    let file = std::fs::File::open(&path).map_err(io)?;
    let mut data = Vec::new();
    file.take(declared).read_to_end(&mut data).map_err(io)?;
    Ok(data)
}
