//! Small glTF documents written by test code: a binary buffer with its views and accessors,
//! the JSON around it, the buffer embedded as a base64 data URI, and the same document as GLB.

use base64::Engine as _;
use serde_json::{json, Value};

/// glTF component types (glTF 2.0, section 3.6.2.2).
pub const UNSIGNED_BYTE: u32 = 5121;
/// 16-bit unsigned indices.
pub const UNSIGNED_SHORT: u32 = 5123;
/// 32-bit unsigned indices.
pub const UNSIGNED_INT: u32 = 5125;
/// 32-bit floats.
pub const FLOAT: u32 = 5126;

/// A buffer being filled, with one view and one accessor per array.
#[derive(Default)]
pub struct Builder {
    pub bin: Vec<u8>,
    pub views: Vec<Value>,
    pub accessors: Vec<Value>,
}

impl Builder {
    /// A view over `bytes`, appended at a 4-byte boundary.
    fn view(&mut self, bytes: &[u8]) -> usize {
        while !self.bin.len().is_multiple_of(4) {
            self.bin.push(0);
        }
        self.views.push(json!({
            "buffer": 0, "byteOffset": self.bin.len(), "byteLength": bytes.len()
        }));
        self.bin.extend_from_slice(bytes);
        self.views.len() - 1
    }

    /// A VEC3 float accessor (positions, normals); returns its index.
    pub fn vec3s(&mut self, values: &[[f32; 3]]) -> usize {
        let bytes: Vec<u8> = values
            .iter()
            .flatten()
            .flat_map(|v| v.to_le_bytes())
            .collect();
        let view = self.view(&bytes);
        let (min, max) = values
            .iter()
            .fold(([f32::MAX; 3], [f32::MIN; 3]), |(lo, hi), p| {
                (
                    [lo[0].min(p[0]), lo[1].min(p[1]), lo[2].min(p[2])],
                    [hi[0].max(p[0]), hi[1].max(p[1]), hi[2].max(p[2])],
                )
            });
        self.accessors.push(json!({
            "bufferView": view, "componentType": FLOAT, "count": values.len(),
            "type": "VEC3", "min": min, "max": max
        }));
        self.accessors.len() - 1
    }

    /// A VEC2 float accessor (texture coordinates); returns its index.
    pub fn vec2s(&mut self, values: &[[f32; 2]]) -> usize {
        let bytes: Vec<u8> = values
            .iter()
            .flatten()
            .flat_map(|v| v.to_le_bytes())
            .collect();
        let view = self.view(&bytes);
        self.accessors.push(json!({
            "bufferView": view, "componentType": FLOAT, "count": values.len(), "type": "VEC2"
        }));
        self.accessors.len() - 1
    }

    /// A SCALAR index accessor of `component` type; returns its index.
    pub fn indices(&mut self, values: &[u32], component: u32) -> usize {
        let bytes: Vec<u8> = match component {
            UNSIGNED_BYTE => values.iter().map(|&i| i as u8).collect(),
            UNSIGNED_SHORT => values
                .iter()
                .flat_map(|&i| (i as u16).to_le_bytes())
                .collect(),
            _ => values.iter().flat_map(|&i| i.to_le_bytes()).collect(),
        };
        let view = self.view(&bytes);
        self.accessors.push(json!({
            "bufferView": view, "componentType": component, "count": values.len(),
            "type": "SCALAR"
        }));
        self.accessors.len() - 1
    }

    /// The whole document: these meshes and nodes, one scene of `roots`, the buffer as a
    /// data URI.
    pub fn document(&self, meshes: Value, nodes: Value, roots: Value) -> Value {
        let uri = format!(
            "data:application/octet-stream;base64,{}",
            base64::engine::general_purpose::STANDARD.encode(&self.bin)
        );
        json!({
            "asset": {"version": "2.0"},
            "scene": 0,
            "scenes": [{"nodes": roots}],
            "nodes": nodes,
            "meshes": meshes,
            "accessors": self.accessors,
            "bufferViews": self.views,
            "buffers": [{"byteLength": self.bin.len(), "uri": uri}],
        })
    }
}

/// A document's JSON text.
pub fn text(document: &Value) -> Vec<u8> {
    serde_json::to_vec_pretty(document).expect("serializes")
}

/// Buffer 0's bytes, decoded from its data URI.
pub fn embedded_buffer(document: &Value) -> Vec<u8> {
    let uri = document["buffers"][0]["uri"].as_str().expect("a uri");
    let (_, data) = uri.split_once(',').expect("a data URI");
    base64::engine::general_purpose::STANDARD
        .decode(data)
        .expect("base64")
}

/// The document as GLB (glTF 2.0, section 4.4): buffer 0's data URI moved into the BIN chunk.
pub fn to_glb(document: &Value) -> Vec<u8> {
    let bin = embedded_buffer(document);
    let mut document = document.clone();
    document["buffers"][0]
        .as_object_mut()
        .expect("a buffer")
        .remove("uri");
    let mut json = serde_json::to_vec(&document).expect("serializes");
    while !json.len().is_multiple_of(4) {
        json.push(b' ');
    }
    let mut chunk = bin;
    while !chunk.len().is_multiple_of(4) {
        chunk.push(0);
    }
    let total = 12 + 8 + json.len() + 8 + chunk.len();
    let mut glb = Vec::with_capacity(total);
    glb.extend_from_slice(b"glTF");
    glb.extend_from_slice(&2u32.to_le_bytes());
    glb.extend_from_slice(&(total as u32).to_le_bytes());
    glb.extend_from_slice(&(json.len() as u32).to_le_bytes());
    glb.extend_from_slice(b"JSON");
    glb.extend_from_slice(&json);
    glb.extend_from_slice(&(chunk.len() as u32).to_le_bytes());
    glb.extend_from_slice(b"BIN\0");
    glb.extend_from_slice(&chunk);
    glb
}

/// A document of one mesh with one primitive of `mode` over `positions` (indexed by
/// `indices` of `component` type when given), placed by one node without a transform.
pub fn one_primitive(positions: &[[f32; 3]], indices: Option<(&[u32], u32)>, mode: u32) -> Value {
    let mut builder = Builder::default();
    let position = builder.vec3s(positions);
    let mut primitive = json!({"attributes": {"POSITION": position}, "mode": mode});
    if let Some((indices, component)) = indices {
        primitive["indices"] = json!(builder.indices(indices, component));
    }
    builder.document(
        json!([{"name": "shape", "primitives": [primitive]}]),
        json!([{"mesh": 0}]),
        json!([0]),
    )
}

/// The unit right triangle in the z = 0 plane, one primitive, not indexed.
pub fn unit_triangle() -> Value {
    one_primitive(
        &[[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]],
        None,
        4,
    )
}
