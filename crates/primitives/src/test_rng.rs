//! A tiny deterministic generator for the crate's unit tests (xorshift), so that they need no
//! dependency, and the exact-coordinate patch and rays and the fan the watertight tests share.

use glam::Vec3;

/// Xorshift64 (Marsaglia 2003), yielding floats in `[0, 1)`.
pub(crate) struct Xorshift(pub(crate) u64);

impl Xorshift {
    /// The next float in `[0, 1)`.
    pub(crate) fn next(&mut self) -> f32 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 >> 40) as f32 / (1u64 << 24) as f32
    }

    /// A point in the cube `[-scale, scale]^3`.
    pub(crate) fn point(&mut self, scale: f32) -> Vec3 {
        Vec3::new(self.next(), self.next(), self.next()) * 2.0 * scale - scale
    }
}

/// The patch of a cube `[0, 16]^3` cut into unit squares around the crease vertex
/// `(16, 14, 0)`, where the faces `x = 16` and `z = 0` meet: two squares by two of each face,
/// two triangles per square, oriented outwards. Every coordinate is a small integer.
pub(crate) fn crease_patch() -> Vec<[Vec3; 3]> {
    let mut squares = Vec::new();
    for (i, j) in [(0.0, 0.0), (0.0, 1.0), (1.0, 0.0), (1.0, 1.0)] {
        let (y, z) = (13.0 + i, j);
        squares.push([
            [16.0, y, z],
            [16.0, y + 1.0, z],
            [16.0, y + 1.0, z + 1.0],
            [16.0, y, z + 1.0],
        ]);
        let (x, y) = (14.0 + j, 13.0 + i);
        squares.push([
            [x, y, 0.0],
            [x, y + 1.0, 0.0],
            [x + 1.0, y + 1.0, 0.0],
            [x + 1.0, y, 0.0],
        ]);
    }
    squares
        .iter()
        .flat_map(|square| {
            let [p0, p1, p2, p3] = square.map(Vec3::from_array);
            [[p0, p1, p2], [p0, p2, p3]]
        })
        .collect()
}

/// Eight rays at oblique angles, each exactly through a point of [`crease_patch`] (its
/// origin plus its direction is the point, exactly): from outside through the crease vertex,
/// an edge midpoint on the crease, one ulp beside the vertex (missing the cube), a vertex of
/// the face `x = 16`; from inside through the crease vertex and edge, a vertex of the face
/// `z = 0` and a diagonal's midpoint.
pub(crate) fn crease_rays() -> [crate::rays::Ray; 8] {
    let outside = Vec3::new(30.0, -7.0, 11.0);
    let inside = Vec3::new(8.0, 8.0, 8.0);
    let beside = Vec3::new(f32::from_bits(16f32.to_bits() + 1), 14.0, 0.0);
    [
        (outside, Vec3::new(16.0, 14.0, 0.0)),
        (outside, Vec3::new(16.0, 14.5, 0.0)),
        (outside, beside),
        (outside, Vec3::new(16.0, 14.0, 1.0)),
        (inside, Vec3::new(16.0, 14.0, 0.0)),
        (inside, Vec3::new(16.0, 14.5, 0.0)),
        (inside, Vec3::new(15.0, 14.0, 0.0)),
        (inside, Vec3::new(16.0, 13.5, 0.5)),
    ]
    .map(|(origin, target)| {
        let ray = crate::rays::Ray::new(origin, target - origin);
        assert_eq!(origin + ray.dir, target);
        ray
    })
}

/// Four triangles around the shared vertex `centre`, out to the `rim` (a square in `z = 0`),
/// which the lane tests hit through the vertex and along the spokes.
pub(crate) struct SharedVertexFan {
    pub(crate) centre: Vec3,
    pub(crate) rim: [Vec3; 4],
    pub(crate) triangles: [crate::triangles::Triangle; 4],
}

/// The fan of [`SharedVertexFan`].
pub(crate) fn shared_vertex_fan() -> SharedVertexFan {
    let centre = Vec3::new(0.5, 0.25, 0.0);
    let rim = [
        Vec3::new(1.5, 0.25, 0.0),
        Vec3::new(0.5, 1.25, 0.0),
        Vec3::new(-0.5, 0.25, 0.0),
        Vec3::new(0.5, -0.75, 0.0),
    ];
    let triangles =
        core::array::from_fn(|i| crate::triangles::Triangle::new(centre, rim[i], rim[(i + 1) % 4]));
    SharedVertexFan {
        centre,
        rim,
        triangles,
    }
}

/// `k`, [`crease_patch`] and three sets of [`crease_rays`] scaled by `2^k`, for `k` from
/// `-140` (subnormal coordinates) to `100` (products beyond `f32`'s range): the rays scaled
/// whole (their `t` unchanged), by their origins only (`t` scaled), and with a subnormal
/// component added to their directions beside the normal ones.
pub(crate) fn scaled_creases() -> Vec<(i32, Vec<crate::triangles::Triangle>, [crate::rays::Ray; 8])>
{
    let mut creases = Vec::new();
    for k in [-140, -130, -126, -100, -60, 0, 40, 60, 100] {
        let s = 2f64.powi(k) as f32;
        let patch: Vec<crate::triangles::Triangle> = crease_patch()
            .iter()
            .map(|[a, b, c]| crate::triangles::Triangle::new(*a * s, *b * s, *c * s))
            .collect();
        let rays = crease_rays();
        let subnormal = Vec3::new(0.0, f32::from_bits(8), -f32::from_bits(3));
        creases.push((
            k,
            patch.clone(),
            rays.map(|r| crate::rays::Ray::new(r.origin * s, r.dir * s)),
        ));
        creases.push((
            k,
            patch.clone(),
            rays.map(|r| crate::rays::Ray::new(r.origin * s, r.dir)),
        ));
        creases.push((
            k,
            patch,
            rays.map(|r| crate::rays::Ray::new(r.origin * s, r.dir + subnormal)),
        ));
    }
    creases
}
