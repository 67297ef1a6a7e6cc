//! Mesh files written by test code, to read back with the library's readers: an OBJ file's
//! polygons as PLY (through ply-rs-bw's writer), triangles as STL (binary through stl_io's
//! writer, ASCII here, as stl_io writes no ASCII).

use std::fmt::Write as _;

use meshcast::glam::Vec3;
use ply_rs_bw::ply::{
    Addable, DefaultElement, ElementDef, Encoding, Ply, Property, PropertyDef, PropertyType,
    ScalarType,
};
use ply_rs_bw::writer::Writer;

/// A polygon mesh as an OBJ file states it: every `v` line's position, and every `f` line's
/// corners as 0-based position indices (negative OBJ indices resolved), in file order.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Polygons {
    /// The positions, in file order.
    pub positions: Vec<Vec3>,
    /// The faces, each its corners' position indices.
    pub faces: Vec<Vec<u32>>,
}

impl Polygons {
    /// Reads OBJ text's `v` and `f` lines, independently of the library's reader.
    ///
    /// # Panics
    /// On text that is not a valid OBJ file.
    pub fn from_obj_text(text: &str) -> Self {
        let mut polygons = Self::default();
        for line in text.lines() {
            let mut words = line.split_whitespace();
            match words.next() {
                Some("v") => {
                    let c: Vec<f32> = words
                        .take(3)
                        .map(|w| w.parse().expect("a coordinate"))
                        .collect();
                    polygons.positions.push(Vec3::new(c[0], c[1], c[2]));
                }
                Some("f") => {
                    let count = polygons.positions.len() as i64;
                    let face = words
                        .map(|corner| {
                            let index: i64 = corner
                                .split('/')
                                .next()
                                .and_then(|i| i.parse().ok())
                                .expect("a vertex index");
                            (if index < 0 { count + index } else { index - 1 }) as u32
                        })
                        .collect();
                    polygons.faces.push(face);
                }
                _ => {}
            }
        }
        polygons
    }

    /// The corner positions of the fan triangles `(c0, ci, ci+1)` of every face, in order.
    pub fn fan_triangles(&self) -> Vec<[Vec3; 3]> {
        self.faces
            .iter()
            .flat_map(|face| {
                (1..face.len() - 1).map(move |i| {
                    [face[0], face[i], face[i + 1]].map(|k| self.positions[k as usize])
                })
            })
            .collect()
    }
}

/// How a PLY file stores its data.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PlyEncoding {
    /// Text.
    Ascii,
    /// Binary, little endian.
    BinaryLittleEndian,
    /// Binary, big endian.
    BinaryBigEndian,
}

/// How a PLY file stores positions and indices.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PlyLayout {
    /// `float` coordinates, faces as `list uchar int vertex_indices` (the common layout).
    Float,
    /// `double` coordinates, faces as `list uint uint vertex_index`.
    Double,
}

/// `polygons` as a PLY file: one `vertex` element (`x`, `y`, `z`), one `face` element.
///
/// # Panics
/// If ply-rs-bw cannot write it (a face of more than 255 corners in [`PlyLayout::Float`]).
pub fn ply_bytes(polygons: &Polygons, encoding: PlyEncoding, layout: PlyLayout) -> Vec<u8> {
    let (coordinate, count, index, list_name) = match layout {
        PlyLayout::Float => (
            ScalarType::Float,
            ScalarType::UChar,
            ScalarType::Int,
            "vertex_indices",
        ),
        PlyLayout::Double => (
            ScalarType::Double,
            ScalarType::UInt,
            ScalarType::UInt,
            "vertex_index",
        ),
    };
    let mut ply = Ply::<DefaultElement>::new();
    ply.header.encoding = match encoding {
        PlyEncoding::Ascii => Encoding::Ascii,
        PlyEncoding::BinaryLittleEndian => Encoding::BinaryLittleEndian,
        PlyEncoding::BinaryBigEndian => Encoding::BinaryBigEndian,
    };
    let mut vertex = ElementDef::new("vertex".into());
    for axis in ["x", "y", "z"] {
        vertex.properties.add(PropertyDef::new(
            axis.into(),
            PropertyType::Scalar(coordinate.clone()),
        ));
    }
    let mut face = ElementDef::new("face".into());
    face.properties.add(PropertyDef::new(
        list_name.into(),
        PropertyType::List(count, index),
    ));
    ply.header.elements.add(vertex);
    ply.header.elements.add(face);

    let vertices = polygons
        .positions
        .iter()
        .map(|p| {
            let mut element = DefaultElement::new();
            for (axis, value) in ["x", "y", "z"].into_iter().zip(p.to_array()) {
                let value = match layout {
                    PlyLayout::Float => Property::Float(value),
                    PlyLayout::Double => Property::Double(value.into()),
                };
                element.insert(axis.into(), value);
            }
            element
        })
        .collect();
    let faces = polygons
        .faces
        .iter()
        .map(|corners| {
            let mut element = DefaultElement::new();
            let list = match layout {
                PlyLayout::Float => Property::ListInt(corners.iter().map(|&c| c as i32).collect()),
                PlyLayout::Double => Property::ListUInt(corners.clone()),
            };
            element.insert(list_name.into(), list);
            element
        })
        .collect();
    ply.payload.insert("vertex".into(), vertices);
    ply.payload.insert("face".into(), faces);

    let mut bytes = Vec::new();
    Writer::new()
        .write_ply(&mut bytes, &mut ply)
        .expect("ply-rs-bw writes the mesh");
    bytes
}

/// Triangles as a binary STL file whose 80-byte header starts with `header` (padded with
/// spaces; many binary files start with `solid`), written by stl_io; normals are zero.
///
/// # Panics
/// If `header` is longer than 80 bytes.
pub fn binary_stl_bytes(triangles: &[[Vec3; 3]], header: &str) -> Vec<u8> {
    let triangles: Vec<stl_io::Triangle> = triangles
        .iter()
        .map(|corners| stl_io::Triangle {
            normal: stl_io::Normal::new([0.0; 3]),
            vertices: corners.map(|c| stl_io::Vertex::new(c.to_array())),
        })
        .collect();
    let mut bytes = Vec::new();
    stl_io::write_stl(&mut bytes, triangles.iter()).expect("writing to memory");
    assert!(header.len() <= 80, "an STL header has 80 bytes");
    bytes[..80].fill(b' ');
    bytes[..header.len()].copy_from_slice(header.as_bytes());
    bytes
}

/// Triangles as an ASCII STL file (`solid name` ... `endsolid name`), each coordinate
/// written as the shortest decimal that reads back to the same `f32`; normals are zero.
pub fn ascii_stl_bytes(triangles: &[[Vec3; 3]]) -> Vec<u8> {
    let mut text = String::from("solid meshcast\n");
    for corners in triangles {
        text.push_str("  facet normal 0 0 0\n    outer loop\n");
        for c in corners {
            writeln!(text, "      vertex {} {} {}", c.x, c.y, c.z).expect("to a string");
        }
        text.push_str("    endloop\n  endfacet\n");
    }
    text.push_str("endsolid meshcast\n");
    text.into_bytes()
}
