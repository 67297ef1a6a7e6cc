//! Stanford PLY, ASCII and binary (little and big endian), through ply-rs-bw: its header
//! parser, then its element readers, one element at a time, into flat arrays.
//!
//! Elements are read one by one rather than with the crate's `read_ply`, so that nothing is
//! kept per element but the numbers meshcast uses, every allocation grows with the bytes
//! actually read (never with a count the header declares), and errors name the element.

use std::io::{BufRead, ErrorKind};

use glam::{DVec3, Vec2, Vec3};
use ply_rs_bw::parser::{ParseError, Parser, Reader};
use ply_rs_bw::ply::{
    ElementDef, Encoding, Header, PropertyAccess, PropertyAccessResult, PropertyType, ScalarType,
};
use smallvec::SmallVec;

use crate::polygon::triangulate;
use crate::source::Source;
use crate::{Error, Format, IndexKind, Place, Result};
use meshcast_bvh::{try_grow, try_reserve};
use meshcast_mesh::{frame_origin, TriMesh, VertexAttribute, Warning};
use meshcast_primitives::carry_point;

/// The element holding the vertices.
const VERTEX: &str = "vertex";
/// The element holding the faces.
const FACE: &str = "face";
/// The names a face's list of vertex indices goes by.
const INDEX_LISTS: [&str; 2] = ["vertex_indices", "vertex_index"];
/// The names texture coordinates go by, in the order they are looked for.
const UV_NAMES: [[&str; 2]; 3] = [["s", "t"], ["u", "v"], ["texture_u", "texture_v"]];

/// Reads the faces of a PLY file, triangulated like OBJ faces (see [`triangulate`]), with
/// per-vertex normals (`nx`, `ny`, `nz`) and texture coordinates (`s`/`t`, `u`/`v` or
/// `texture_u`/`texture_v`) when the vertices have them. Other elements and properties are
/// skipped.
pub(crate) fn read(bytes: &[u8], source: Source) -> Result<TriMesh> {
    let mut reader = Reader::new(bytes);
    let header = Parser::<Skipped>::new()
        .read_header(&mut reader)
        .map_err(|error| {
            let line = error.line().unwrap_or(reader.line());
            parse_error(
                source.at(Place::Line(line)),
                &error,
                "the header's `end_header`",
            )
        })?;
    let layout = Layout::of(&header, source)?;
    let payload = reader.get_ref();
    let mut elements = Elements {
        encoding: header.encoding,
        rest: payload,
        length: bytes.len(),
        line: reader.line(),
        source,
    };
    let mut data = Data::default();
    data.reserve(&header, &layout, payload.len(), source)?;
    let (mut vertices_read, mut faces_read) = (false, false);
    for element in header.elements.values() {
        if vertices_read && faces_read {
            break;
        }
        match element.name.as_str() {
            VERTEX => {
                elements.read(element, Some(VERTEX), |index, vertex: VertexRecord| {
                    data.push_vertex(&layout, index, &vertex, source)
                })?;
                vertices_read = true;
            }
            FACE => {
                let vertex_count = layout.vertex_count;
                elements.read(element, Some(FACE), |index, face: FaceRecord| {
                    data.push_face(index, &face, vertex_count, source)
                })?;
                faces_read = true;
            }
            _ => elements.read(element, None, |_, _: Skipped| Ok(()))?,
        }
    }
    data.into_tri_mesh(&layout, source)
}

/// What the header says about the vertices and faces.
struct Layout {
    /// How many vertices the header declares (checked to fit a `u32` index).
    vertex_count: usize,
    /// Whether the vertices have `nx`, `ny` and `nz`.
    normals: bool,
    /// Whether the vertices have texture coordinates.
    uvs: bool,
}

impl Layout {
    /// Checks that the header describes a mesh meshcast can read.
    fn of(header: &Header, source: Source) -> Result<Self> {
        let malformed = |problem: String| Error::Malformed {
            at: source.at(Place::File),
            format: Format::Ply,
            problem,
        };
        let vertex = header
            .elements
            .get(VERTEX)
            .ok_or_else(|| malformed("no `vertex` element in the header".into()))?;
        let is_scalar = |name: &str| {
            vertex
                .properties
                .get(name)
                .is_some_and(|p| matches!(p.data_type, PropertyType::Scalar(_)))
        };
        if let Some(name) = ["x", "y", "z"].into_iter().find(|name| !is_scalar(name)) {
            return Err(malformed(format!(
                "the vertex element has no number property `{name}`"
            )));
        }
        let Some(face) = header.elements.get(FACE) else {
            return Err(Error::NoFaces {
                at: source.at(Place::File),
            });
        };
        let list = INDEX_LISTS
            .iter()
            .find_map(|name| face.properties.get(*name))
            .ok_or_else(|| {
                malformed("the face element has no `vertex_indices` or `vertex_index` list".into())
            })?;
        match &list.data_type {
            PropertyType::List(count, index) if is_integer(count) && is_integer(index) => {}
            other => {
                return Err(malformed(format!(
                    "the face element's `{}` is not a list of integers: {other:?}",
                    list.name
                )))
            }
        }
        if vertex.count > u32::MAX as usize {
            return Err(Error::too_large("vertex", vertex.count as u64));
        }
        Ok(Self {
            vertex_count: vertex.count,
            normals: ["nx", "ny", "nz"].into_iter().all(is_scalar),
            uvs: UV_NAMES
                .iter()
                .any(|pair| pair.iter().all(|n| is_scalar(n))),
        })
    }
}

fn is_integer(scalar: &ScalarType) -> bool {
    !matches!(scalar, ScalarType::Float | ScalarType::Double)
}

/// The payload, read element by element.
struct Elements<'a> {
    encoding: Encoding,
    /// What is left to read.
    rest: &'a [u8],
    /// The whole file's length.
    length: usize,
    /// The line about to be read (ASCII only).
    line: usize,
    source: Source<'a>,
}

impl Elements<'_> {
    /// Reads every element of `element`'s kind, handing each to `each` with its index.
    /// Errors name the element (`kind`, if given; else its byte) in a binary file, and the
    /// line in an ASCII one.
    fn read<E: PropertyAccess>(
        &mut self,
        element: &ElementDef,
        kind: Option<&'static str>,
        mut each: impl FnMut(usize, E) -> Result<()>,
    ) -> Result<()> {
        let parser = Parser::<E>::new();
        let mut text = String::new();
        for index in 0..element.count {
            let offset = self.length - self.rest.len();
            let expected = || format!("{} `{}` elements", element.count, element.name);
            let (value, at) = match self.encoding {
                Encoding::Ascii => {
                    let at = self.source.at(Place::Line(self.line));
                    text.clear();
                    match self.rest.read_line(&mut text) {
                        Ok(0) => {
                            return Err(Error::Truncated {
                                at,
                                expected: expected(),
                            })
                        }
                        Ok(_) => {}
                        Err(_) => return Err(Error::InvalidUtf8 { at }),
                    }
                    self.line += 1;
                    (parser.read_ascii_element(&text, element), at)
                }
                // A binary element without properties has no bytes: nothing to read, however
                // many the header declares.
                _ if element.properties.is_empty() => return Ok(()),
                encoding => {
                    let at = self.source.at(match kind {
                        Some(kind) => Place::Element { kind, index },
                        None => Place::Byte(offset as u64),
                    });
                    let value = if encoding == Encoding::BinaryBigEndian {
                        parser.read_big_endian_element(&mut self.rest, element)
                    } else {
                        parser.read_little_endian_element(&mut self.rest, element)
                    };
                    (value, at)
                }
            };
            let value = value.map_err(|error| parse_error(at, &error, &expected()))?;
            each(index, value)?;
        }
        Ok(())
    }
}

/// A ply-rs-bw error as ours: the end of the data is [`Error::Truncated`], anything else
/// [`Error::Malformed`] with the crate's message (shortened).
fn parse_error(at: crate::Location, error: &ParseError, expected: &str) -> Error {
    if error.kind() == ErrorKind::UnexpectedEof {
        return Error::Truncated {
            at,
            expected: expected.to_owned(),
        };
    }
    const MAX_CHARS: usize = 160;
    let message = error.to_string();
    let message = match (message.strip_prefix("Line "), message.find(": ")) {
        (Some(_), Some(colon)) => &message[colon + 2..],
        _ => &message,
    };
    let mut problem: String = message.split_whitespace().collect::<Vec<_>>().join(" ");
    if let Some((cut, _)) = problem.char_indices().nth(MAX_CHARS) {
        problem.truncate(cut);
        problem.push_str("...");
    }
    Error::Malformed {
        at,
        format: Format::Ply,
        problem,
    }
}

/// The vertices and faces read so far.
#[derive(Default)]
struct Data {
    /// In `f64`, as the file gives them (a `float` exactly), until the mesh's frame is
    /// known ([`frame_origin`]).
    positions: Vec<DVec3>,
    normals: Vec<Vec3>,
    uvs: Vec<Vec2>,
    /// Every face's vertex indices, one face after another.
    corners: Vec<u32>,
    /// Every face's corner count.
    arities: Vec<u32>,
}

/// The fewest bytes one element of `element` takes in `encoding`: a binary scalar its size, a
/// binary list its count; in ASCII, a digit and a separator per property.
fn min_element_bytes(element: &ElementDef, encoding: Encoding) -> usize {
    let size = |scalar: &ScalarType| match scalar {
        ScalarType::Char | ScalarType::UChar => 1,
        ScalarType::Short | ScalarType::UShort => 2,
        ScalarType::Int | ScalarType::UInt | ScalarType::Float => 4,
        ScalarType::Double => 8,
    };
    let bytes: usize = element
        .properties
        .values()
        .map(|property| match (&property.data_type, encoding) {
            (_, Encoding::Ascii) => 2,
            (PropertyType::Scalar(scalar) | PropertyType::List(scalar, _), _) => size(scalar),
        })
        .sum();
    bytes.max(1)
}

/// Makes room in `vec` for `count` more elements, or [`Error::OutOfMemory`].
fn reserve<T>(vec: &mut Vec<T>, count: usize, what: &'static str, source: Source) -> Result<()> {
    try_reserve(vec, count, what).map_err(|error| Error::OutOfMemory {
        at: source.at(Place::File),
        source: error,
    })
}

impl Data {
    /// Reserves what the header's counts need, each count capped by what the `payload`
    /// bytes can hold (a header may declare any count), so that a valid file is read
    /// without a reallocation and an allocation that cannot succeed is an error.
    fn reserve(
        &mut self,
        header: &Header,
        layout: &Layout,
        payload: usize,
        source: Source,
    ) -> Result<()> {
        let count = |name: &str| {
            header.elements.get(name).map_or(0, |element| {
                element
                    .count
                    .min(payload / min_element_bytes(element, header.encoding))
            })
        };
        let (vertices, faces) = (count(VERTEX), count(FACE));
        reserve(
            &mut self.positions,
            vertices,
            "the PLY file's vertices",
            source,
        )?;
        if layout.normals {
            reserve(
                &mut self.normals,
                vertices,
                "the PLY file's normals",
                source,
            )?;
        }
        if layout.uvs {
            let what = "the PLY file's texture coordinates";
            reserve(&mut self.uvs, vertices, what, source)?;
        }
        reserve(&mut self.corners, 3 * faces, "the PLY file's faces", source)?;
        reserve(&mut self.arities, faces, "the PLY file's faces", source)
    }

    /// Room for one more element in `vec`, past what [`Data::reserve`] made.
    fn grow<T>(vec: &mut Vec<T>, what: &'static str, source: Source) -> Result<()> {
        try_grow(vec, what).map_err(|error| Error::OutOfMemory {
            at: source.at(Place::File),
            source: error,
        })
    }

    fn push_vertex(
        &mut self,
        layout: &Layout,
        index: usize,
        vertex: &VertexRecord,
        source: Source,
    ) -> Result<()> {
        let value = |slot: usize| -> Result<f32> {
            let value = vertex.values[slot];
            let narrowed = value as f32;
            if narrowed.is_finite() {
                Ok(narrowed)
            } else {
                Err(Error::NonFiniteValue {
                    at: source.at(Place::Element {
                        kind: VERTEX,
                        index,
                    }),
                    // A double too large for f32 in a few characters, not hundreds.
                    found: if value.is_finite() {
                        format!("{value:e}")
                    } else {
                        value.to_string()
                    },
                })
            }
        };
        // Each coordinate is checked to be a finite `f32`, as it always was; the `f64` is
        // kept so that a file far from the origin keeps its precision.
        for slot in 0..3 {
            value(slot)?;
        }
        let [x, y, z, ..] = vertex.values;
        Self::grow(&mut self.positions, "the PLY file's vertices", source)?;
        self.positions.push(DVec3::new(x, y, z));
        if layout.normals {
            Self::grow(&mut self.normals, "the PLY file's normals", source)?;
            self.normals
                .push(Vec3::new(value(3)?, value(4)?, value(5)?));
        }
        if layout.uvs {
            Self::grow(&mut self.uvs, "the PLY file's texture coordinates", source)?;
            self.uvs.push(Vec2::new(value(6)?, value(7)?));
        }
        Ok(())
    }

    fn push_face(
        &mut self,
        index: usize,
        face: &FaceRecord,
        vertex_count: usize,
        source: Source,
    ) -> Result<()> {
        let at = || source.at(Place::Element { kind: FACE, index });
        let corners = face.corners.len();
        if corners < 3 {
            return Err(Error::FaceTooSmall { at: at(), corners });
        }
        Self::grow(&mut self.arities, "the PLY file's faces", source)?;
        for &corner in &face.corners {
            match u32::try_from(corner) {
                Ok(vertex) if (vertex as usize) < vertex_count => {
                    Self::grow(&mut self.corners, "the PLY file's faces", source)?;
                    self.corners.push(vertex);
                }
                _ => {
                    return Err(Error::FaceIndexOutOfRange {
                        at: at(),
                        kind: IndexKind::Position,
                        index: corner,
                        count: vertex_count,
                    })
                }
            }
        }
        self.arities.push(
            u32::try_from(corners).map_err(|_| Error::too_large("face corner", corners as u64))?,
        );
        Ok(())
    }

    /// Triangulates the faces, in file order.
    fn into_tri_mesh(self, layout: &Layout, source: Source) -> Result<TriMesh> {
        if self.arities.is_empty() {
            return Err(Error::NoFaces {
                at: source.at(Place::File),
            });
        }
        // A file whose box lies far from the origin (UTM or Earth-centred `double`
        // coordinates) keeps its positions relative to an origin of its own; any other gets
        // the `f32` roundings of its numbers, as it always did.
        let origin = frame_origin(self.positions.iter().copied());
        let mut positions: Vec<Vec3> = Vec::new();
        reserve(
            &mut positions,
            self.positions.len(),
            "the mesh's positions",
            source,
        )?;
        positions.extend(self.positions.iter().map(|&p| carry_point(p, origin)));
        drop(self.positions);
        // Polygons add triangles: each face's corners beyond three.
        let triangles = self.corners.len() - 2 * self.arities.len();
        let mut indices: Vec<[u32; 3]> = Vec::new();
        reserve(&mut indices, triangles, "the mesh's triangles", source)?;
        let mut concave: Option<(usize, usize)> = None;
        let mut points: Vec<Vec3> = Vec::new();
        let mut start = 0usize;
        for (face, &arity) in self.arities.iter().enumerate() {
            let corners = &self.corners[start..start + arity as usize];
            start += arity as usize;
            if let [a, b, c] = *corners {
                indices.push([a, b, c]);
                continue;
            }
            points.clear();
            points.extend(corners.iter().map(|&i| positions[i as usize]));
            let (triangles, is_concave) = triangulate(&points);
            if is_concave {
                concave.get_or_insert((0, face)).0 += 1;
            }
            indices.extend(triangles.iter().map(|t| t.map(|k| corners[k])));
        }
        let mut tri_mesh = TriMesh::new(positions, indices)?.with_origin(origin)?;
        if layout.normals {
            let normals = VertexAttribute::per_vertex(self.normals, tri_mesh.indices());
            tri_mesh = tri_mesh.with_normals(normals)?;
        }
        if layout.uvs {
            let uvs = VertexAttribute::per_vertex(self.uvs, tri_mesh.indices());
            tri_mesh = tri_mesh.with_uvs(uvs)?;
        }
        if let Some((count, first_face)) = concave {
            tri_mesh.set_warnings(vec![Warning::ConcavePolygons { count, first_face }]);
        }
        Ok(tri_mesh)
    }
}

/// One vertex as read: position, normal, texture coordinates (as the file gives them, in
/// double precision; zero where absent).
struct VertexRecord {
    values: [f64; 8],
}

impl VertexRecord {
    fn set(&mut self, name: &str, value: f64) -> PropertyAccessResult {
        let slot = match name {
            "x" => 0,
            "y" => 1,
            "z" => 2,
            "nx" => 3,
            "ny" => 4,
            "nz" => 5,
            "s" | "u" | "texture_u" => 6,
            "t" | "v" | "texture_v" => 7,
            _ => return PropertyAccessResult::Ignored,
        };
        self.values[slot] = value;
        PropertyAccessResult::Set
    }
}

impl PropertyAccess for VertexRecord {
    fn new() -> Self {
        Self { values: [0.0; 8] }
    }
    fn set_char(&mut self, name: &str, value: i8) -> PropertyAccessResult {
        self.set(name, value.into())
    }
    fn set_uchar(&mut self, name: &str, value: u8) -> PropertyAccessResult {
        self.set(name, value.into())
    }
    fn set_short(&mut self, name: &str, value: i16) -> PropertyAccessResult {
        self.set(name, value.into())
    }
    fn set_ushort(&mut self, name: &str, value: u16) -> PropertyAccessResult {
        self.set(name, value.into())
    }
    fn set_int(&mut self, name: &str, value: i32) -> PropertyAccessResult {
        self.set(name, value.into())
    }
    fn set_uint(&mut self, name: &str, value: u32) -> PropertyAccessResult {
        self.set(name, value.into())
    }
    fn set_float(&mut self, name: &str, value: f32) -> PropertyAccessResult {
        self.set(name, value.into())
    }
    fn set_double(&mut self, name: &str, value: f64) -> PropertyAccessResult {
        self.set(name, value)
    }
}

/// One face as read: its vertex indices, widened so that a negative one can be reported.
struct FaceRecord {
    corners: SmallVec<[i64; 4]>,
}

impl FaceRecord {
    fn set<T: Into<i64>>(&mut self, name: &str, values: Vec<T>) -> PropertyAccessResult {
        if INDEX_LISTS.contains(&name) {
            self.corners = values.into_iter().map(Into::into).collect();
            PropertyAccessResult::Set
        } else {
            PropertyAccessResult::Ignored
        }
    }
}

impl PropertyAccess for FaceRecord {
    fn new() -> Self {
        Self {
            corners: SmallVec::new(),
        }
    }
    fn set_list_char(&mut self, name: &str, values: Vec<i8>) -> PropertyAccessResult {
        self.set(name, values)
    }
    fn set_list_uchar(&mut self, name: &str, values: Vec<u8>) -> PropertyAccessResult {
        self.set(name, values)
    }
    fn set_list_short(&mut self, name: &str, values: Vec<i16>) -> PropertyAccessResult {
        self.set(name, values)
    }
    fn set_list_ushort(&mut self, name: &str, values: Vec<u16>) -> PropertyAccessResult {
        self.set(name, values)
    }
    fn set_list_int(&mut self, name: &str, values: Vec<i32>) -> PropertyAccessResult {
        self.set(name, values)
    }
    fn set_list_uint(&mut self, name: &str, values: Vec<u32>) -> PropertyAccessResult {
        self.set(name, values)
    }
}

/// An element meshcast does not use: read past, nothing kept.
struct Skipped;

impl PropertyAccess for Skipped {
    fn new() -> Self {
        Skipped
    }
}
