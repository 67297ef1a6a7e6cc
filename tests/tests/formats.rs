//! Every OBJ asset, written by test code as PLY (ASCII, binary little and big endian) and STL
//! (ASCII, binary), reads back with the OBJ's triangles and answers rays with the OBJ's hits,
//! whether loaded by path, bytes or reader; formats are recognised by content whatever the
//! file is called; and truncated, garbled and hostile files are typed errors, never panics.

use std::collections::HashSet;
use std::path::Path;

use meshcast::glam::Vec3;
use meshcast::{
    BuildOptions, Format, IoError, Mesh, MeshError, Ray, RayQueries, TriMesh, TriMeshFiles,
};
use meshcast_testkit::{
    all_assets, ascii_stl_bytes, asset, binary_stl_bytes, cube, icosphere, incoherent_rays,
    ply_bytes, random_rays, rng, temp_path, PlyEncoding, PlyLayout, Polygons,
};
use rand::Rng;

/// Rays per asset and encoding.
const RAY_COUNT: usize = 3000;

/// The PLY files written for each asset.
const PLY_VARIANTS: [(PlyEncoding, PlyLayout); 4] = [
    (PlyEncoding::Ascii, PlyLayout::Float),
    (PlyEncoding::BinaryLittleEndian, PlyLayout::Float),
    (PlyEncoding::BinaryBigEndian, PlyLayout::Float),
    (PlyEncoding::BinaryLittleEndian, PlyLayout::Double),
];

/// An asset as the OBJ reader gives it, its polygons as the text states them, and rays at it.
struct Reference {
    name: String,
    obj: TriMesh,
    mesh: Mesh,
    polygons: Polygons,
    rays: Vec<Ray>,
}

impl Reference {
    fn new(path: &Path) -> Self {
        let obj = TriMesh::from_obj(path).unwrap_or_else(|e| panic!("{e}"));
        let text = std::fs::read_to_string(path).expect("an asset is text");
        let bounds = obj.bounds();
        let mut rays = incoherent_rays(bounds, RAY_COUNT / 2, 11);
        rays.extend(random_rays(bounds, RAY_COUNT / 2, 12));
        Self {
            name: path.file_name().unwrap().to_string_lossy().into_owned(),
            mesh: Mesh::from_tri_mesh(obj.clone(), &BuildOptions::default()),
            obj,
            polygons: Polygons::from_obj_text(&text),
            rays,
        }
    }

    fn triangles(&self) -> Vec<[Vec3; 3]> {
        self.obj.triangles().map(|t| t.vertices()).collect()
    }

    /// `read` has the OBJ's triangles, corner for corner, in order, and the same hits.
    fn check(&self, read: &TriMesh, what: &str) {
        let name = &self.name;
        assert_eq!(
            read.triangle_count(),
            self.obj.triangle_count(),
            "{name} {what}"
        );
        for (k, (a, b)) in read.triangles().zip(self.obj.triangles()).enumerate() {
            assert_eq!(a.vertices(), b.vertices(), "{name} {what}: triangle {k}");
        }
        let mesh = Mesh::from_tri_mesh(read.clone(), &BuildOptions::default());
        for (i, ray) in self.rays.iter().enumerate() {
            let (got, want) = (mesh.cast(ray), self.mesh.cast(ray));
            let key = |h: Option<meshcast::Hit>| h.map(|h| (h.t.to_bits(), h.triangle));
            assert_eq!(key(got), key(want), "{name} {what}: ray {i}");
            if i % 10 == 0 {
                let all = |m: &Mesh| -> Vec<_> {
                    m.cast_all(ray)
                        .iter()
                        .map(|h| (h.t.to_bits(), h.triangle))
                        .collect()
                };
                assert_eq!(
                    all(&mesh),
                    all(&self.mesh),
                    "{name} {what}: ray {i}, all hits"
                );
            }
        }
    }
}

/// Reads `bytes` every way there is: from bytes with and without the format, from a reader,
/// and from a file named `name`; all must agree.
fn read_every_way(bytes: &[u8], format: Format, name: &str) -> TriMesh {
    let mesh = TriMesh::from_bytes(bytes, Some(format)).unwrap_or_else(|e| panic!("{name}: {e}"));
    let detected = TriMesh::from_bytes(bytes, None).unwrap_or_else(|e| panic!("{name}: {e}"));
    let streamed = TriMesh::from_reader(bytes, None).unwrap_or_else(|e| panic!("{name}: {e}"));
    let path = temp_path(name);
    std::fs::write(&path, bytes).expect("a temporary file");
    let loaded = TriMesh::from_path(&path).unwrap_or_else(|e| panic!("{name}: {e}"));
    std::fs::remove_file(&path).ok();
    assert!(
        detected == mesh && streamed == mesh && loaded == mesh,
        "{name}"
    );
    mesh
}

/// The distinct positions the triangles use, `-0.0` counted as `0.0`.
fn distinct_used_positions(mesh: &TriMesh) -> usize {
    let used: HashSet<[u32; 3]> = mesh
        .indices()
        .iter()
        .flatten()
        .map(|&i| {
            (mesh.positions()[i as usize] + Vec3::ZERO)
                .to_array()
                .map(f32::to_bits)
        })
        .collect();
    used.len()
}

#[test]
fn ply_files_read_back_with_the_obj_triangles_and_hits() {
    for path in all_assets() {
        let reference = Reference::new(&path);
        for (encoding, layout) in PLY_VARIANTS {
            let bytes = ply_bytes(&reference.polygons, encoding, layout);
            let what = format!("{encoding:?} {layout:?}");
            let name = format!("{}-{encoding:?}-{layout:?}.ply", reference.name);
            let read = read_every_way(&bytes, Format::Ply, &name);
            reference.check(&read, &what);
        }
    }
}

#[test]
fn stl_files_read_back_with_the_obj_triangles_welded_and_hits() {
    for path in all_assets() {
        let reference = Reference::new(&path);
        let triangles = reference.triangles();
        for (what, bytes) in [
            ("ascii", ascii_stl_bytes(&triangles)),
            ("binary", binary_stl_bytes(&triangles, "")),
            (
                "binary solid",
                binary_stl_bytes(&triangles, "solid but binary"),
            ),
        ] {
            let name = format!("{}-{what}.stl", reference.name);
            let read = read_every_way(&bytes, Format::Stl, &name);
            reference.check(&read, what);
            assert_eq!(
                read.vertex_count(),
                distinct_used_positions(&reference.obj),
                "{name}"
            );
            assert_eq!(read.is_closed(), reference.obj.is_closed(), "{name}");
        }
    }
}

/// A closed mesh stays closed through STL, which stores every triangle's corners apart.
#[test]
fn closed_meshes_stay_closed_through_stl() {
    let cow = TriMesh::from_obj(asset("cow.obj")).expect("the cow loads");
    for mesh in [cube(1.0, 3), icosphere(3), cow] {
        assert!(mesh.is_closed());
        let triangles: Vec<[Vec3; 3]> = mesh.triangles().map(|t| t.vertices()).collect();
        for bytes in [
            ascii_stl_bytes(&triangles),
            binary_stl_bytes(&triangles, "solid"),
        ] {
            let read = TriMesh::from_bytes(&bytes, None).expect("reads");
            assert!(read.is_closed());
            assert_eq!(read.vertex_count(), distinct_used_positions(&mesh));
        }
    }
}

/// Content decides when the name is wrong or missing.
#[test]
fn formats_are_recognised_by_content_under_any_name() {
    let reference = Reference::new(&asset("suzanne.obj"));
    let ply = ply_bytes(
        &reference.polygons,
        PlyEncoding::BinaryLittleEndian,
        PlyLayout::Float,
    );
    let stl = binary_stl_bytes(&reference.triangles(), "solid suzanne");
    let ascii = ascii_stl_bytes(&reference.triangles());
    let obj = std::fs::read(asset("suzanne.obj")).expect("the asset");
    for (bytes, format, names) in [
        (
            &ply,
            Format::Ply,
            ["ply-as.stl", "ply-as.obj", "ply-without-extension"],
        ),
        (
            &stl,
            Format::Stl,
            ["stl-as.obj", "stl-as.ply", "stl-without-extension"],
        ),
        (
            &ascii,
            Format::Stl,
            ["text-stl-as.obj", "text-stl-as.ply", "text-stl"],
        ),
        (
            &obj,
            Format::Obj,
            ["obj-as.stl", "obj-as.ply", "obj-without-extension"],
        ),
    ] {
        assert_eq!(Format::detect(bytes), Some(format));
        for name in names {
            let path = temp_path(name);
            std::fs::write(&path, bytes).expect("a temporary file");
            let read = TriMesh::from_path(&path).unwrap_or_else(|e| panic!("{name}: {e}"));
            std::fs::remove_file(&path).ok();
            reference.check(&read, name);
        }
    }
}

/// The files of a small asset in every encoding, with their format.
fn small_files() -> Vec<(String, Format, Vec<u8>)> {
    let reference = Reference::new(&asset("suzanne.obj"));
    let triangles = reference.triangles();
    let mut files: Vec<(String, Format, Vec<u8>)> = PLY_VARIANTS
        .iter()
        .map(|&(encoding, layout)| {
            let bytes = ply_bytes(&reference.polygons, encoding, layout);
            (format!("{encoding:?} {layout:?}"), Format::Ply, bytes)
        })
        .collect();
    files.push(("ascii stl".into(), Format::Stl, ascii_stl_bytes(&triangles)));
    files.push((
        "binary stl".into(),
        Format::Stl,
        binary_stl_bytes(&triangles, ""),
    ));
    files.push((
        "binary stl named solid".into(),
        Format::Stl,
        binary_stl_bytes(&triangles, "solid"),
    ));
    files
}

/// A cut file is an error of the kinds a damaged file gives; only a cut within the last line
/// of a text file (its trailing newline, the name after `endsolid`) may still read.
#[test]
fn truncated_files_are_typed_errors() {
    for (what, format, bytes) in small_files() {
        let whole = bytes.len();
        let mut cuts: Vec<usize> = (0..64).map(|k| whole * k / 64).collect();
        cuts.extend(0..400.min(whole));
        cuts.extend(whole.saturating_sub(40)..whole);
        let last_line = bytes[..whole - 1]
            .iter()
            .rposition(|&b| b == b'\n')
            .map_or(0, |end| end + 1);
        for cut in cuts {
            let part = &bytes[..cut];
            let _ = TriMesh::from_bytes(part, None);
            match TriMesh::from_bytes(part, Some(format)) {
                Ok(_) => assert!(
                    cut > last_line && !what.to_lowercase().contains("binary"),
                    "{what} cut at {cut} of {whole} reads"
                ),
                Err(
                    IoError::Truncated { .. }
                    | IoError::Malformed { .. }
                    | IoError::NoFaces { .. }
                    | IoError::InvalidUtf8 { .. },
                ) => {}
                Err(other) => panic!("{what} cut at {cut}: unexpected {other:?}"),
            }
        }
        // A binary file cut anywhere after its header says it ends early.
        if what.contains("binary") {
            let header_end = if format == Format::Stl {
                84
            } else {
                bytes
                    .windows(11)
                    .position(|w| w == b"end_header\n")
                    .unwrap()
                    + 11
            };
            for k in 0..64 {
                let cut = header_end + (whole - header_end) * k / 64;
                let err = TriMesh::from_bytes(&bytes[..cut], Some(format));
                assert!(
                    matches!(err, Err(IoError::Truncated { .. })),
                    "{what} cut at {cut}: {err:?}"
                );
            }
        }
    }
}

/// Flipped bytes anywhere give a mesh or a typed error, never a panic; flips in a binary
/// file's header or in the text of an ASCII one are mostly errors.
#[test]
fn garbled_files_never_panic() {
    let mut rng = rng(14);
    for (what, format, bytes) in small_files() {
        let mut errors = 0;
        for _ in 0..300 {
            let mut garbled = bytes.clone();
            let flips = rng.gen_range(1..=4);
            for _ in 0..flips {
                // Half the flips land in the first few hundred bytes, where the header is.
                let at = if rng.gen() {
                    rng.gen_range(0..garbled.len().min(300))
                } else {
                    rng.gen_range(0..garbled.len())
                };
                garbled[at] ^= 1 << rng.gen_range(0..8);
            }
            let _ = TriMesh::from_bytes(&garbled, None);
            match TriMesh::from_bytes(&garbled, Some(format)) {
                Ok(mesh) => assert!(mesh.triangle_count() > 0),
                Err(_) => errors += 1,
            }
        }
        assert!(errors > 0, "{what}: no flip was noticed");
    }
}

/// Counts in a hostile header are believed only as far as the bytes go.
#[test]
fn hostile_counts_are_typed_errors() {
    let reference = Reference::new(&asset("suzanne.obj"));
    for (encoding, layout) in PLY_VARIANTS {
        let bytes = ply_bytes(&reference.polygons, encoding, layout);
        let text = String::from_utf8_lossy(&bytes);
        let header_end = text.find("end_header\n").unwrap();
        for element in ["vertex", "face"] {
            for count in [
                "4294967295",
                "4294967296",
                "18446744073709551615",
                "99999999999999999999999",
            ] {
                let header = &text[..header_end];
                let start = header.find(&format!("element {element} ")).unwrap();
                let end = start + header[start..].find('\n').unwrap();
                let mut hostile = bytes[..start].to_vec();
                hostile.extend(format!("element {element} {count}").bytes());
                hostile.extend(&bytes[end..]);
                let err =
                    TriMesh::from_bytes(&hostile, Some(Format::Ply)).expect_err("a hostile count");
                assert!(
                    matches!(
                        err,
                        IoError::Truncated { .. }
                            | IoError::Malformed { .. }
                            | IoError::Mesh(MeshError::TooLarge { .. })
                    ),
                    "{encoding:?} {element} {count}: {err}"
                );
            }
        }
    }
    let binary = binary_stl_bytes(&reference.triangles(), "solid");
    for count in [u32::MAX, 1 << 31, binary.len() as u32] {
        let mut hostile = binary.clone();
        hostile[80..84].copy_from_slice(&count.to_le_bytes());
        let err = TriMesh::from_bytes(&hostile, Some(Format::Stl)).expect_err("a hostile count");
        assert!(matches!(err, IoError::Truncated { .. }), "{count}: {err}");
    }
}
