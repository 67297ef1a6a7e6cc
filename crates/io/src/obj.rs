//! Wavefront OBJ loading through tobj: a line-by-line check that reports errors with their
//! line, then tobj's parse, then every object and group merged into one [`TriMesh`].
//!
//! tobj has no line numbers and accepts things we must reject (`nan` coordinates, faces of
//! one or two corners, which it reads as points and lines), so the file is first checked here
//! line by line. What passes is handed to tobj as a cleaned copy with the same line count:
//! line elements (`l`) blanked, since tobj reads them as faces; colours after a `v` dropped;
//! statements tobj does not use blanked.
//!
//! Coordinates are read in `f64`: a file whose box lies farther from the origin than
//! [`meshcast_primitives::FAR_SIZES`] times its diagonal (UTM or Earth-centred coordinates)
//! keeps its positions relative to an origin of its own ([`TriMesh::origin`]); any other
//! gets the `f32` roundings of its numbers, as it always did.

use glam::{DVec2, DVec3, Vec2, Vec3};
use std::cell::RefCell;
use std::collections::HashMap;

use meshcast_bvh::{try_reserve, OutOfMemory};

use crate::polygon::triangulate;
use crate::source::excerpt;
use crate::source::Source;
use crate::{Error, IndexKind, Location, Place, Result};
use meshcast_mesh::{frame_origin, TriMesh, VertexAttribute, Warning};
use meshcast_primitives::carry_point;

/// Which per-corner attributes a face gives for *all* of its corners.
#[derive(Clone, Copy, Debug, Default)]
struct FaceAttributes {
    uv: bool,
    normal: bool,
    /// The face's line in the file.
    line: usize,
}

/// What the line-by-line check learned.
struct Checked {
    /// The file as tobj should see it (one output line per input line).
    cleaned: String,
    /// One entry per `f` statement, in file order.
    faces: Vec<FaceAttributes>,
    /// Skipped statements: keyword, count, first line.
    ignored: Vec<(String, usize, usize)>,
}

/// Reads every object and group of an OBJ file into one triangle mesh. Material libraries
/// are looked up next to the file; bytes without a file have none.
pub(crate) fn read(bytes: &[u8], source: Source) -> Result<TriMesh> {
    let checked = check(source, bytes)?;
    if checked.faces.is_empty() {
        return Err(Error::NoFaces {
            at: source.at(Place::File),
        });
    }

    let folder = source.folder();
    let failed_libraries = RefCell::new(Vec::new());
    // The struct update is needed when tobj's optional features add fields.
    #[allow(clippy::needless_update)]
    let options = tobj::LoadOptions {
        single_index: false,
        triangulate: false,
        ignore_points: true,
        ignore_lines: true,
        ..Default::default()
    };
    let (models, _materials) =
        tobj::load_obj_buf(&mut checked.cleaned.as_bytes(), &options, |library| {
            // Materials play no part in ray casting: they are read only to warn about a
            // library a file names but lacks.
            let Some(folder) = folder else {
                return Ok(Default::default());
            };
            let loaded = tobj::load_mtl(folder.join(library));
            if let Err(source) = &loaded {
                failed_libraries
                    .borrow_mut()
                    .push((library.to_path_buf(), *source));
            }
            loaded
        })
        .map_err(|error| Error::Obj {
            at: source.at(Place::File),
            source: Box::new(error),
        })?;

    let (mut tri_mesh, concave) = merge(&models, &checked.faces, source)?;
    let mut warnings: Vec<Warning> = checked
        .ignored
        .into_iter()
        .map(|(keyword, count, first_line)| Warning::IgnoredStatements {
            keyword,
            count,
            first_line,
        })
        .collect();
    if let Some((count, first_line)) = concave {
        warnings.push(Warning::ConcaveFaces { count, first_line });
    }
    warnings.extend(
        failed_libraries
            .into_inner()
            .into_iter()
            .map(|(path, source)| Warning::MaterialLibrary {
                path,
                reason: source.to_string(),
            }),
    );
    tri_mesh.set_warnings(warnings);
    Ok(tri_mesh)
}

/// The line-by-line check: every error that a user can fix, with its line.
fn check(source: Source, bytes: &[u8]) -> Result<Checked> {
    let mut counts = [0usize; 3]; // v, vt, vn defined so far
    let mut cleaned = String::new();
    cleaned
        .try_reserve_exact(bytes.len() + 1)
        .map_err(|_| Error::OutOfMemory {
            at: source.at(Place::File),
            source: OutOfMemory::of::<u8>(bytes.len() + 1, "the OBJ file's checked text"),
        })?;
    let mut faces = Vec::new();
    let mut ignored: Vec<(String, usize, usize)> = Vec::new();

    for (number, raw) in bytes.split(|&b| b == b'\n').enumerate() {
        let line = number + 1;
        let at = || source.at(Place::Line(line));
        let raw = raw.strip_suffix(b"\r").unwrap_or(raw);
        let text = std::str::from_utf8(raw)
            .map_err(|_| Error::InvalidUtf8 { at: at() })?
            .trim();
        let mut words = text.split_whitespace();
        let keyword = match words.next() {
            Some(k) if !k.starts_with('#') => k,
            _ => {
                cleaned.push('\n');
                continue;
            }
        };
        if !keyword
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_')
        {
            return Err(syntax(at(), "a statement keyword", keyword));
        }
        let rest = text[keyword.len()..].trim();
        match keyword {
            "v" => {
                let values: Vec<&str> = words.collect();
                if !matches!(values.len(), 3 | 4 | 6) {
                    return Err(syntax(
                        at(),
                        "x y z, then an optional weight or r g b",
                        rest,
                    ));
                }
                let mut xyz = [0.0f32; 3];
                for (value, word) in xyz.iter_mut().zip(&values) {
                    *value = number_at(word, at)?;
                }
                if values.len() == 4 {
                    let w = number_at(values[3], at)?;
                    // tobj divides by the weight; the quotient must be finite too.
                    if !xyz.iter().all(|c| (c / w).is_finite()) {
                        return Err(Error::NonFiniteValue {
                            at: at(),
                            found: excerpt(values[3]),
                        });
                    }
                }
                counts[0] += 1;
                // tobj reads a fourth number as a weight to divide by: keep it only when it
                // is one, never the red of `x y z r g b`.
                let kept = if values.len() == 4 { 4 } else { 3 };
                cleaned.push_str("v ");
                cleaned.push_str(&values[..kept].join(" "));
            }
            "vt" => {
                let values: Vec<&str> = words.collect();
                if !matches!(values.len(), 2 | 3) {
                    return Err(syntax(at(), "u v, then an optional w", rest));
                }
                for word in &values {
                    number_at(word, at)?;
                }
                counts[1] += 1;
                cleaned.push_str(text);
            }
            "vn" => {
                let values: Vec<&str> = words.collect();
                if values.len() != 3 {
                    return Err(syntax(at(), "x y z", rest));
                }
                for word in &values {
                    number_at(word, at)?;
                }
                counts[2] += 1;
                cleaned.push_str(text);
            }
            "f" => {
                faces.push(FaceAttributes {
                    line,
                    ..check_face(words, counts, at)?
                });
                cleaned.push_str(text);
            }
            "o" | "g" => cleaned.push_str(text),
            // tobj splits these at the first space, so write them with one.
            "usemtl" | "mtllib" => {
                if rest.is_empty() {
                    return Err(syntax(at(), "a name after the keyword", text));
                }
                cleaned.push_str(keyword);
                cleaned.push(' ');
                cleaned.push_str(rest);
            }
            // Attributes without geometry that need no warning.
            "s" | "mg" | "lod" | "bevel" | "c_interp" | "d_interp" | "shadow_obj" | "trace_obj"
            | "maplib" | "usemap" => {}
            other => match ignored.iter_mut().find(|(k, _, _)| k == other) {
                Some((_, count, _)) => *count += 1,
                None => ignored.push((other.to_owned(), 1, line)),
            },
        }
        cleaned.push('\n');
    }
    if counts.iter().any(|&c| c > u32::MAX as usize) {
        return Err(Error::too_large(
            "vertex",
            counts.into_iter().max().unwrap_or(0) as u64,
        ));
    }
    Ok(Checked {
        cleaned,
        faces,
        ignored,
    })
}

/// Checks one face's corners (`v`, `v/vt`, `v//vn`, `v/vt/vn`) against what is defined so far.
fn check_face<'a>(
    words: impl Iterator<Item = &'a str>,
    counts: [usize; 3],
    at: impl Fn() -> Location + Copy,
) -> Result<FaceAttributes> {
    let mut corners = 0;
    let mut all = FaceAttributes {
        uv: true,
        normal: true,
        line: 0,
    };
    for word in words {
        corners += 1;
        let mut parts = word.split('/');
        let kinds = [
            IndexKind::Position,
            IndexKind::TextureCoordinate,
            IndexKind::Normal,
        ];
        let mut present = [false; 3];
        for (k, kind) in kinds.into_iter().enumerate() {
            match parts.next() {
                Some("") | None if k > 0 => {}
                Some(part) if !part.is_empty() => {
                    check_index(part, counts[k], kind, at)?;
                    present[k] = true;
                }
                _ => return Err(syntax(at(), "a vertex index", word)),
            }
        }
        if parts.next().is_some() {
            return Err(syntax(
                at(),
                "a corner `v`, `v/vt`, `v//vn` or `v/vt/vn`",
                word,
            ));
        }
        all.uv &= present[1];
        all.normal &= present[2];
    }
    if corners < 3 {
        return Err(Error::FaceTooSmall { at: at(), corners });
    }
    Ok(all)
}

/// An OBJ index is 1-based, or negative to count back from the latest definition.
fn check_index(text: &str, count: usize, kind: IndexKind, at: impl Fn() -> Location) -> Result<()> {
    let index: i64 = text
        .parse()
        .map_err(|_| syntax(at(), "an integer index", text))?;
    let in_range = index != 0 && index.unsigned_abs() <= count as u64;
    if in_range {
        Ok(())
    } else {
        Err(Error::FaceIndexOutOfRange {
            at: at(),
            kind,
            index,
            count,
        })
    }
}

/// Parses a finite `f32` the way tobj does (`str::parse`), rejecting NaN and infinities.
fn number_at(word: &str, at: impl Fn() -> Location) -> Result<f32> {
    let value: f32 = word.parse().map_err(|_| syntax(at(), "a number", word))?;
    if value.is_finite() {
        Ok(value)
    } else {
        Err(Error::NonFiniteValue {
            at: at(),
            found: excerpt(word),
        })
    }
}

fn syntax(at: Location, expected: &'static str, found: &str) -> Error {
    Error::Syntax {
        at,
        expected,
        found: excerpt(found),
    }
}

/// Merges tobj's models (one per run of faces under one `o`/`g` name and material) into one
/// mesh, triangulating each face, keeping file order. Also returns how many faces were concave
/// and the line of the first.
fn merge(
    models: &[tobj::Model],
    faces: &[FaceAttributes],
    source: Source,
) -> Result<(TriMesh, Option<(usize, usize)>)> {
    let mut concave: Option<(usize, usize)> = None;
    let mut positions: Vec<Vec3> = Vec::new();
    let mut indices: Vec<[u32; 3]> = Vec::new();
    let mut normals: Vec<Vec3> = Vec::new();
    let mut normal_indices: Vec<Option<[u32; 3]>> = Vec::new();
    let mut uvs: Vec<Vec2> = Vec::new();
    let mut uv_indices: Vec<Option<[u32; 3]>> = Vec::new();
    let mut group_names: Vec<String> = Vec::new();
    let mut group_ids: HashMap<&str, u32> = HashMap::new();
    let mut triangle_groups: Vec<u32> = Vec::new();
    let mut face_number = 0usize;
    let mut corner_points: Vec<Vec3> = Vec::new();
    // tobj reads numbers as `f64`: a file whose box lies far from the origin (UTM or
    // Earth-centred coordinates) keeps its positions relative to an origin of its own
    // ([`frame_origin`]), so that they keep their precision; near the origin they are the
    // `f32` roundings of the numbers, as before.
    let origin = frame_origin(models.iter().flat_map(|model| {
        let positions = model.mesh.positions.chunks_exact(3);
        positions.map(|p| DVec3::new(p[0], p[1], p[2]))
    }));

    // The merged positions and triangles, reserved at once; tobj's own buffers are its own.
    let out_of_memory = |error| Error::OutOfMemory {
        at: source.at(Place::File),
        source: error,
    };
    let vertex_count = models.iter().map(|m| m.mesh.positions.len() / 3).sum();
    try_reserve(&mut positions, vertex_count, "the OBJ file's vertices").map_err(out_of_memory)?;
    let corner_count: usize = models.iter().map(|m| m.mesh.indices.len()).sum();
    try_reserve(&mut indices, corner_count / 3, "the OBJ file's triangles")
        .map_err(out_of_memory)?;

    for model in models {
        let mesh = &model.mesh;
        let next_group = group_names.len() as u32;
        let group = *group_ids.entry(model.name.as_str()).or_insert(next_group);
        if group == next_group {
            group_names.push(model.name.clone());
        }
        let position_base = offset(positions.len())?;
        let normal_base = offset(normals.len())?;
        let uv_base = offset(uvs.len())?;
        positions.extend(
            mesh.positions
                .chunks_exact(3)
                .map(|p| carry_point(DVec3::new(p[0], p[1], p[2]), origin)),
        );
        normals.extend(
            mesh.normals
                .chunks_exact(3)
                .map(|n| DVec3::new(n[0], n[1], n[2]).as_vec3()),
        );
        uvs.extend(
            mesh.texcoords
                .chunks_exact(2)
                .map(|t| DVec2::new(t[0], t[1]).as_vec2()),
        );
        let has_normals = mesh.normal_indices.len() == mesh.indices.len();
        let has_uvs = mesh.texcoord_indices.len() == mesh.indices.len();

        let arities: Box<dyn Iterator<Item = usize>> = if mesh.face_arities.is_empty() {
            Box::new(std::iter::repeat_n(3, mesh.indices.len() / 3))
        } else {
            Box::new(mesh.face_arities.iter().map(|&n| n as usize))
        };
        let mut first = 0usize;
        for arity in arities {
            let corners = first..first + arity;
            first += arity;
            let attributes = faces.get(face_number).copied().unwrap_or_default();
            face_number += 1;
            corner_points.clear();
            corner_points.extend(
                mesh.indices[corners.clone()]
                    .iter()
                    .map(|&i| positions[(position_base + i) as usize]),
            );
            let (triangles, is_concave) = triangulate(&corner_points);
            if is_concave {
                let (count, _) = concave.get_or_insert((0, attributes.line));
                *count += 1;
            }
            for [a, b, c] in triangles {
                let pick = |list: &[u32], base: u32| {
                    let at = |k: usize| base + list[corners.start + k];
                    [at(a), at(b), at(c)]
                };
                indices.push(pick(&mesh.indices, position_base));
                normal_indices.push(
                    (attributes.normal && has_normals)
                        .then(|| pick(&mesh.normal_indices, normal_base)),
                );
                uv_indices.push(
                    (attributes.uv && has_uvs).then(|| pick(&mesh.texcoord_indices, uv_base)),
                );
                triangle_groups.push(group);
            }
        }
    }
    debug_assert_eq!(
        face_number,
        faces.len(),
        "tobj and the check disagree on faces"
    );

    let mut tri_mesh = TriMesh::new(positions, indices)?.with_origin(origin)?;
    if normal_indices.iter().any(Option::is_some) {
        tri_mesh = tri_mesh.with_normals(VertexAttribute::new(normals, normal_indices))?;
    }
    if uv_indices.iter().any(Option::is_some) {
        tri_mesh = tri_mesh.with_uvs(VertexAttribute::new(uvs, uv_indices))?;
    }
    Ok((tri_mesh.with_groups(group_names, triangle_groups)?, concave))
}

fn offset(len: usize) -> Result<u32> {
    u32::try_from(len).map_err(|_| Error::too_large("vertex", len as u64))
}
