//! Stanford PLY, ASCII and binary (little and big endian), streamed from a reader into the
//! mesh's buffers: ply-rs-bw reads the header and ASCII elements, [`binary`] the binary ones.
//!
//! Elements are read one by one, so that nothing is kept per element but the numbers
//! meshcast uses, every allocation grows with the bytes actually read (never with a count
//! the header declares alone), and errors name the element. A binary file's bytes pass
//! through a window of a megabyte ([`binary::Window`]), never held whole: a file of 100
//! million triangles is read into its positions and triangles and nothing else.

use std::io::{BufRead, ErrorKind};

use glam::{DVec3, Vec2, Vec3};
use ply_rs_bw::parser::{ParseError, Parser, Reader};
use ply_rs_bw::ply::{
    ElementDef, Encoding, Header, PropertyAccess, PropertyAccessResult, PropertyType, ScalarType,
};
use smallvec::SmallVec;

mod binary;

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

/// Reads the faces of a PLY file in memory: [`read_from`] on its bytes.
pub(crate) fn read(bytes: &[u8], source: Source) -> Result<TriMesh> {
    read_from(bytes, Some(bytes.len() as u64), source)
}

/// Reads the faces of a PLY file from `input` (`size` bytes long, if known: it caps what
/// the header's counts reserve), triangulated like OBJ faces (see [`triangulate`]), with
/// per-vertex normals (`nx`, `ny`, `nz`) and texture coordinates (`s`/`t`, `u`/`v` or
/// `texture_u`/`texture_v`) when the vertices have them. Other elements and properties are
/// skipped.
pub(crate) fn read_from(input: impl BufRead, size: Option<u64>, source: Source) -> Result<TriMesh> {
    let mut reader = Reader::new(binary::Counted::new(input));
    let header = Parser::<Record>::new()
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
    let line = reader.line();
    let input = reader.into_inner();
    let payload = size.map(|size| size.saturating_sub(input.consumed()));
    let mut data = Data::new(&header, &layout, payload, source)?;
    let mut elements = Elements {
        encoding: header.encoding,
        window: binary::Window::new(input),
        line,
        source,
    };
    let (mut vertices_read, mut faces_read) = (false, false);
    for element in header.elements.values() {
        if vertices_read && faces_read {
            break;
        }
        match element.name.as_str() {
            VERTEX => {
                elements.read(
                    element,
                    Some(VERTEX),
                    Some(Record::slot),
                    &mut data,
                    |data, index, vertex| data.push_vertex(&layout, index, vertex, source),
                )?;
                vertices_read = true;
            }
            FACE => {
                elements.read(
                    element,
                    Some(FACE),
                    Some(Record::slot),
                    &mut data,
                    |data, index, face| data.push_face(index, face, source),
                )?;
                faces_read = true;
            }
            _ => elements.read(element, None, None, &mut data, |_, _, _| Ok(()))?,
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
    /// Whether every coordinate's type is exact in `f32` ([`Positions::Single`]).
    single: bool,
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
        let single = ["x", "y", "z"].into_iter().all(|name| {
            vertex.properties.get(name).is_some_and(|p| {
                matches!(
                    p.data_type,
                    PropertyType::Scalar(
                        ScalarType::Float
                            | ScalarType::Char
                            | ScalarType::UChar
                            | ScalarType::Short
                            | ScalarType::UShort
                    )
                )
            })
        });
        Ok(Self {
            single,
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
struct Elements<'a, R> {
    encoding: Encoding,
    /// What is left to read, through a window for binary elements (lines are read from the
    /// window's input directly).
    window: binary::Window<R>,
    /// The line about to be read (ASCII only).
    line: usize,
    source: Source<'a>,
}

impl<R: BufRead> Elements<'_, R> {
    /// Reads every element of `element`'s kind into `data`, handing each to `each` with its
    /// index, the properties `slot` names a place for (none: the records are only stepped
    /// over) in their [`Record`] places; binary vertices and faces in the layouts of
    /// [`binary::Run`] go into `data` many at a time ([`Data::push_run`]), and `each` has
    /// the others. Errors name the element (`kind`, if given; else its byte) in a binary
    /// file, and the line in an ASCII one.
    fn read(
        &mut self,
        element: &ElementDef,
        kind: Option<&'static str>,
        slot: Option<fn(&str) -> Option<usize>>,
        data: &mut Data,
        mut each: impl FnMut(&mut Data, usize, &Record) -> Result<()>,
    ) -> Result<()> {
        let expected = || format!("{} `{}` elements", element.count, element.name);
        if self.encoding == Encoding::Ascii {
            let parser = Parser::<Record>::new();
            let mut text = String::new();
            for index in 0..element.count {
                let at = self.source.at(Place::Line(self.line));
                text.clear();
                match self.window.input().read_line(&mut text) {
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
                let record = parser
                    .read_ascii_element(&text, element)
                    .map_err(|error| parse_error(at, &error, &expected()))?;
                each(data, index, &record)?;
            }
            return Ok(());
        }
        // A binary element without properties has no bytes: nothing to read, however many
        // the header declares.
        if element.properties.is_empty() {
            return Ok(());
        }
        let plan = binary::Plan::new(element, slot);
        let big_endian = self.encoding == Encoding::BinaryBigEndian;
        let run = match kind {
            Some(kind) => plan.run(big_endian, kind == FACE),
            None => binary::Run::None,
        };
        let mut record = Record::new();
        let mut index = 0;
        while index < element.count {
            if !matches!(run, binary::Run::None) {
                // As many records as lie ahead in the run's layout; a record of another
                // shape (a polygon, an index out of range, a coordinate that is not
                // finite), or one cut short, is read alone below.
                let records = self
                    .window
                    .ahead(run.record_size())
                    .map(|bytes| data.push_run(run, bytes, element.count - index))
                    .map_err(|(problem, offset)| {
                        self.record_error(problem, offset, kind, index, &expected)
                    })?;
                if records > 0 {
                    self.window.consume(records * run.record_size());
                    index += records;
                    continue;
                }
            }
            let read = self
                .window
                .record(|rest| plan.read(rest, big_endian, &mut record));
            if let Err((problem, offset)) = read {
                return Err(self.record_error(problem, offset, kind, index, &expected));
            }
            each(data, index, &record)?;
            index += 1;
        }
        Ok(())
    }

    /// The error for `problem`, met reading element `index` of `kind` (or at byte `offset`
    /// of an element of no kind), of which `expected` says how many there are.
    fn record_error(
        &self,
        problem: binary::Problem,
        offset: u64,
        kind: Option<&'static str>,
        index: usize,
        expected: &dyn Fn() -> String,
    ) -> Error {
        let at = self.source.at(match kind {
            Some(kind) => Place::Element { kind, index },
            None => Place::Byte(offset),
        });
        match problem {
            binary::Problem::Truncated => Error::Truncated {
                at,
                expected: expected(),
            },
            binary::Problem::BadCount(problem) => Error::Malformed {
                at,
                format: Format::Ply,
                problem,
            },
            binary::Problem::Io(source) => Error::Io {
                path: self.source.path().into(),
                source,
            },
            binary::Problem::OutOfMemory(error) => Error::OutOfMemory {
                at: self.source.at(Place::File),
                source: error,
            },
        }
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
struct Data {
    positions: Positions,
    normals: Vec<Vec3>,
    uvs: Vec<Vec2>,
    /// Every face's triangles in file order; a polygon's are placeholders until the
    /// positions are known ([`Polygon`]).
    indices: Vec<[u32; 3]>,
    /// The faces of more than three corners, in file order.
    polygons: Vec<Polygon>,
    /// Their corners, one polygon after another.
    polygon_corners: Vec<u32>,
    /// How many vertices the header declares.
    vertex_count: usize,
}

/// The positions as the file gives them, until the mesh's frame is known
/// ([`frame_origin`]): `f32` when every coordinate's type fits one exactly (`float`,
/// integers of up to 16 bits), else `f64`, so that a file far from the origin keeps its
/// precision.
enum Positions {
    Single(Vec<Vec3>),
    Double(Vec<DVec3>),
}

/// A face of more than three corners: its triangles are found once the positions are.
struct Polygon {
    /// Its index among the faces.
    face: usize,
    /// Its first triangle in [`Data::indices`] (it has `corners - 2`).
    first_triangle: usize,
    /// Where its corners start in [`Data::polygon_corners`].
    first_corner: usize,
    corners: usize,
}

/// The fewest bytes one element of `element` takes in `encoding`: a binary scalar its size, a
/// binary list its count; in ASCII, a digit and a separator per property.
fn min_element_bytes(element: &ElementDef, encoding: Encoding) -> usize {
    let bytes: usize = element
        .properties
        .values()
        .map(|property| match (&property.data_type, encoding) {
            (_, Encoding::Ascii) => 2,
            (PropertyType::Scalar(scalar) | PropertyType::List(scalar, _), _) => {
                binary::size(scalar)
            }
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

/// Appends `value` to `vec`, growing it past what [`Data::new`] reserved if need be.
#[inline(always)]
fn push<T>(vec: &mut Vec<T>, value: T, what: &'static str, source: Source) -> Result<()> {
    if vec.len() == vec.capacity() {
        try_grow(vec, what).map_err(|error| Error::OutOfMemory {
            at: source.at(Place::File),
            source: error,
        })?;
    }
    vec.push(value);
    Ok(())
}

/// The most elements reserved for a count when the payload's size is unknown (a reader):
/// past it, buffers grow as the elements come.
const UNKNOWN_SIZE_RESERVE: usize = 1 << 20;

impl Data {
    /// Room for what the header's counts need, each count capped by what the `payload`
    /// bytes can hold (a header may declare any count), so that a valid file is read
    /// without a reallocation and an allocation that cannot succeed is an error.
    fn new(header: &Header, layout: &Layout, payload: Option<u64>, source: Source) -> Result<Self> {
        let count = |name: &str| {
            header.elements.get(name).map_or(0, |element| {
                let fits = match payload {
                    Some(bytes) => {
                        let bytes = usize::try_from(bytes).unwrap_or(usize::MAX);
                        bytes / min_element_bytes(element, header.encoding)
                    }
                    None => UNKNOWN_SIZE_RESERVE,
                };
                element.count.min(fits)
            })
        };
        let (vertices, faces) = (count(VERTEX), count(FACE));
        let what = "the PLY file's vertices";
        let positions = if layout.single {
            let mut positions = Vec::new();
            reserve(&mut positions, vertices, what, source)?;
            Positions::Single(positions)
        } else {
            let mut positions = Vec::new();
            reserve(&mut positions, vertices, what, source)?;
            Positions::Double(positions)
        };
        let mut data = Self {
            positions,
            normals: Vec::new(),
            uvs: Vec::new(),
            indices: Vec::new(),
            polygons: Vec::new(),
            polygon_corners: Vec::new(),
            vertex_count: layout.vertex_count,
        };
        if layout.normals {
            reserve(
                &mut data.normals,
                vertices,
                "the PLY file's normals",
                source,
            )?;
        }
        if layout.uvs {
            let what = "the PLY file's texture coordinates";
            reserve(&mut data.uvs, vertices, what, source)?;
        }
        reserve(&mut data.indices, faces, "the mesh's triangles", source)?;
        Ok(data)
    }

    fn push_vertex(
        &mut self,
        layout: &Layout,
        index: usize,
        vertex: &Record,
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
        // Each coordinate is checked to be a finite `f32`, as it always was; a `double` is
        // kept as it is so that a file far from the origin keeps its precision.
        let [x, y, z] = [value(0)?, value(1)?, value(2)?];
        let what = "the PLY file's vertices";
        match &mut self.positions {
            Positions::Single(positions) => push(positions, Vec3::new(x, y, z), what, source)?,
            Positions::Double(positions) => {
                let [x, y, z, ..] = vertex.values;
                push(positions, DVec3::new(x, y, z), what, source)?;
            }
        }
        if layout.normals {
            let normal = Vec3::new(value(3)?, value(4)?, value(5)?);
            push(&mut self.normals, normal, "the PLY file's normals", source)?;
        }
        if layout.uvs {
            let uv = Vec2::new(value(6)?, value(7)?);
            push(
                &mut self.uvs,
                uv,
                "the PLY file's texture coordinates",
                source,
            )?;
        }
        Ok(())
    }

    fn push_face(&mut self, index: usize, face: &Record, source: Source) -> Result<()> {
        let vertex_count = self.vertex_count;
        let at = || source.at(Place::Element { kind: FACE, index });
        let corners = face.corners.len();
        if corners < 3 {
            return Err(Error::FaceTooSmall { at: at(), corners });
        }
        let vertex = |corner: i64| {
            u32::try_from(corner)
                .ok()
                .filter(|&vertex| (vertex as usize) < vertex_count)
                .ok_or_else(|| Error::FaceIndexOutOfRange {
                    at: at(),
                    kind: IndexKind::Position,
                    index: corner,
                    count: vertex_count,
                })
        };
        let what = "the mesh's triangles";
        if let [a, b, c] = face.corners[..] {
            return push(
                &mut self.indices,
                [vertex(a)?, vertex(b)?, vertex(c)?],
                what,
                source,
            );
        }
        let polygon = Polygon {
            face: index,
            first_triangle: self.indices.len(),
            first_corner: self.polygon_corners.len(),
            corners,
        };
        for &corner in &face.corners {
            let faces = "the PLY file's faces";
            push(&mut self.polygon_corners, vertex(corner)?, faces, source)?;
        }
        push(&mut self.polygons, polygon, "the PLY file's faces", source)?;
        // Placeholders, `corners - 2` of them, replaced once the positions are known.
        for _ in 0..corners - 2 {
            push(&mut self.indices, [0; 3], what, source)?;
        }
        Ok(())
    }

    /// Pushes the records at the front of `bytes` in `run`'s layout, at most `left` of them,
    /// up to the first that is not the run's plain case (a polygon, an index out of range,
    /// a coordinate that is not finite) or does not fit in what [`Data::new`] reserved, and
    /// returns how many it pushed: the others are read alone, as any record, whose checks
    /// and errors they meet there.
    fn push_run(&mut self, run: binary::Run, bytes: &[u8], left: usize) -> usize {
        let word = |bytes: &[u8], at: usize| -> [u8; 4] {
            bytes[at..at + 4].try_into().expect("four bytes")
        };
        match run {
            binary::Run::None => 0,
            binary::Run::Triangles => {
                let (vertex_count, indices) = (self.vertex_count, &mut self.indices);
                let room = left.min(indices.capacity() - indices.len());
                let before = indices.len();
                for face in bytes.chunks_exact(binary::TRIANGLE_RECORD).take(room) {
                    // An `int` index read as `u32`: a negative one is out of range too.
                    let corners = [1, 5, 9].map(|at| u32::from_le_bytes(word(face, at)));
                    if face[0] != 3 || corners.iter().any(|&c| c as usize >= vertex_count) {
                        break;
                    }
                    indices.push(corners);
                }
                indices.len() - before
            }
            binary::Run::Positions { size, offsets } => {
                let Positions::Single(positions) = &mut self.positions else {
                    return 0;
                };
                let room = left.min(positions.capacity() - positions.len());
                let before = positions.len();
                for vertex in bytes.chunks_exact(size).take(room) {
                    let [x, y, z] = offsets.map(|at| f32::from_le_bytes(word(vertex, at)));
                    let position = Vec3::new(x, y, z);
                    if !position.is_finite() {
                        break;
                    }
                    positions.push(position);
                }
                positions.len() - before
            }
        }
    }

    /// The mesh: positions in their frame, polygons triangulated in place.
    fn into_tri_mesh(self, layout: &Layout, source: Source) -> Result<TriMesh> {
        let Self {
            positions,
            normals,
            uvs,
            mut indices,
            polygons,
            polygon_corners,
            vertex_count: _,
        } = self;
        if indices.is_empty() {
            return Err(Error::NoFaces {
                at: source.at(Place::File),
            });
        }
        // A file whose box lies far from the origin (UTM or Earth-centred `double`
        // coordinates) keeps its positions relative to an origin of its own; any other gets
        // the `f32` roundings of its numbers, as it always did.
        let (positions, origin) = match positions {
            Positions::Single(mut positions) => {
                let origin = frame_origin(positions.iter().map(|p| p.as_dvec3()));
                if origin != DVec3::ZERO {
                    for p in &mut positions {
                        *p = carry_point(p.as_dvec3(), origin);
                    }
                }
                (positions, origin)
            }
            Positions::Double(doubles) => {
                let origin = frame_origin(doubles.iter().copied());
                let mut positions: Vec<Vec3> = Vec::new();
                reserve(
                    &mut positions,
                    doubles.len(),
                    "the mesh's positions",
                    source,
                )?;
                positions.extend(doubles.iter().map(|&p| carry_point(p, origin)));
                (positions, origin)
            }
        };
        let mut concave: Option<(usize, usize)> = None;
        let mut points: Vec<Vec3> = Vec::new();
        for polygon in &polygons {
            let corners =
                &polygon_corners[polygon.first_corner..polygon.first_corner + polygon.corners];
            points.clear();
            points.extend(corners.iter().map(|&i| positions[i as usize]));
            let (triangles, is_concave) = triangulate(&points);
            if is_concave {
                concave.get_or_insert((0, polygon.face)).0 += 1;
            }
            let placeholders = &mut indices[polygon.first_triangle..][..polygon.corners - 2];
            for (slot, triangle) in placeholders.iter_mut().zip(&triangles) {
                *slot = triangle.map(|k| corners[k]);
            }
        }
        drop((polygons, polygon_corners));
        let mut tri_mesh = TriMesh::new(positions, indices)?.with_origin(origin)?;
        if layout.normals {
            let normals = VertexAttribute::per_vertex(normals, tri_mesh.indices());
            tri_mesh = tri_mesh.with_normals(normals)?;
        }
        if layout.uvs {
            let uvs = VertexAttribute::per_vertex(uvs, tri_mesh.indices());
            tri_mesh = tri_mesh.with_uvs(uvs)?;
        }
        if let Some((count, first_face)) = concave {
            tri_mesh.set_warnings(vec![Warning::ConcavePolygons { count, first_face }]);
        }
        Ok(tri_mesh)
    }
}

/// One element as read: a vertex's position, normal and texture coordinates (as the file
/// gives them, in double precision; zero where absent), or a face's vertex indices (widened
/// so that a negative one can be reported). Other properties are skipped.
pub(super) struct Record {
    values: [f64; 8],
    corners: SmallVec<[i64; 4]>,
}

impl Record {
    /// The place of the property called `name`: a slot of `values`, or [`Record::CORNERS`].
    fn slot(name: &str) -> Option<usize> {
        Some(match name {
            "x" => 0,
            "y" => 1,
            "z" => 2,
            "nx" => 3,
            "ny" => 4,
            "nz" => 5,
            "s" | "u" | "texture_u" => 6,
            "t" | "v" | "texture_v" => 7,
            _ if INDEX_LISTS.contains(&name) => Self::CORNERS,
            _ => return None,
        })
    }

    /// The slot of a face's vertex indices.
    pub(super) const CORNERS: usize = 8;

    fn set(&mut self, name: &str, value: f64) -> PropertyAccessResult {
        match Self::slot(name) {
            Some(slot) if slot < Self::CORNERS => {
                self.values[slot] = value;
                PropertyAccessResult::Set
            }
            _ => PropertyAccessResult::Ignored,
        }
    }

    fn set_list<T: Into<i64>>(&mut self, name: &str, values: Vec<T>) -> PropertyAccessResult {
        if Self::slot(name) == Some(Self::CORNERS) {
            self.corners = values.into_iter().map(Into::into).collect();
            PropertyAccessResult::Set
        } else {
            PropertyAccessResult::Ignored
        }
    }
}

impl PropertyAccess for Record {
    fn new() -> Self {
        Self {
            values: [0.0; 8],
            corners: SmallVec::new(),
        }
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
    fn set_list_char(&mut self, name: &str, values: Vec<i8>) -> PropertyAccessResult {
        self.set_list(name, values)
    }
    fn set_list_uchar(&mut self, name: &str, values: Vec<u8>) -> PropertyAccessResult {
        self.set_list(name, values)
    }
    fn set_list_short(&mut self, name: &str, values: Vec<i16>) -> PropertyAccessResult {
        self.set_list(name, values)
    }
    fn set_list_ushort(&mut self, name: &str, values: Vec<u16>) -> PropertyAccessResult {
        self.set_list(name, values)
    }
    fn set_list_int(&mut self, name: &str, values: Vec<i32>) -> PropertyAccessResult {
        self.set_list(name, values)
    }
    fn set_list_uint(&mut self, name: &str, values: Vec<u32>) -> PropertyAccessResult {
        self.set_list(name, values)
    }
}
