//! The node hierarchy of a glTF scene, walked to where each mesh is placed and with which
//! world transform (read and composed in `f64`).

use ::gltf::json;
use glam::{DAffine3, DMat4, DQuat, DVec3};

use super::document::NodeTransform;
use super::malformed;
use crate::source::Source;
use crate::{Error, Place, Result};

/// How far a matrix's last row may stray from `(0, 0, 0, 1)`: glTF node matrices are affine
/// (glTF 2.0, section 3.5.3), written out as decimals.
const AFFINE_ROW_TOLERANCE: f64 = 1e-6;

/// A mesh placed by a node.
pub(super) struct Placement {
    /// The node's index.
    pub(super) node: usize,
    /// The mesh's index.
    pub(super) mesh: usize,
    /// The node's world transform: its ancestors' and its own, composed.
    pub(super) world: DAffine3,
}

/// The place of node `index` in the file.
pub(super) fn place(index: usize) -> Place {
    Place::Element {
        kind: "node",
        index,
    }
}

/// An error in node `index`.
pub(super) fn invalid(source: Source, index: usize, problem: String) -> Error {
    malformed(source.at(place(index)), problem)
}

/// Every mesh placement of the default scene (scene 0 when none is marked default; when the
/// file has no scene at all, every node that is no node's child is a root), in depth-first
/// order of the nodes.
///
/// The walk keeps its own stack, so a deep hierarchy cannot overflow the thread's, and it
/// rejects a node reached twice: a cycle, or a node with two parents, which glTF forbids
/// (section 3.5.1).
///
/// # Errors
/// [`Error::Malformed`] at the node for a missing child or mesh, a node reached twice, a
/// transform that is not finite or not affine, or a mesh placed by a singular transform;
/// at the file for a missing scene.
pub(super) fn placements(
    root: &json::Root,
    transforms: &[NodeTransform],
    source: Source,
) -> Result<Vec<Placement>> {
    let roots = scene_roots(root, source)?;
    let mut reached = vec![false; root.nodes.len()];
    let mut stack: Vec<(usize, DAffine3)> = roots
        .iter()
        .rev()
        .map(|&node| (node, DAffine3::IDENTITY))
        .collect();
    let mut placements = Vec::new();
    while let Some((index, parent)) = stack.pop() {
        let (Some(node), Some(seen)) = (root.nodes.get(index), reached.get_mut(index)) else {
            return Err(malformed(
                source.at(Place::File),
                format!("node {index} does not exist ({} defined)", root.nodes.len()),
            ));
        };
        if std::mem::replace(seen, true) {
            return Err(invalid(
                source,
                index,
                "reached twice: the node hierarchy has a cycle or a node with two parents".into(),
            ));
        }
        let local = local_transform(node, transforms.get(index));
        let world = parent * local.map_err(|p| invalid(source, index, p))?;
        if let Some(mesh) = node.mesh {
            let mesh = mesh.value();
            if mesh >= root.meshes.len() {
                return Err(invalid(
                    source,
                    index,
                    format!("its mesh {mesh} does not exist"),
                ));
            }
            let determinant = world.matrix3.determinant();
            if !world.is_finite() || determinant == 0.0 || !determinant.is_finite() {
                return Err(invalid(
                    source,
                    index,
                    format!("its world transform is not finite or not invertible: {world:?}"),
                ));
            }
            placements.push(Placement {
                node: index,
                mesh,
                world,
            });
        }
        for child in node.children.iter().flatten().rev() {
            let child = child.value();
            if child >= root.nodes.len() {
                return Err(invalid(
                    source,
                    index,
                    format!("its child {child} does not exist"),
                ));
            }
            stack.push((child, world));
        }
    }
    Ok(placements)
}

/// The root nodes of the scene to load.
fn scene_roots(root: &json::Root, source: Source) -> Result<Vec<usize>> {
    let scene = match root.scene {
        Some(index) => Some(root.scenes.get(index.value()).ok_or_else(|| {
            malformed(
                source.at(Place::File),
                format!(
                    "the default scene {} does not exist ({} defined)",
                    index.value(),
                    root.scenes.len()
                ),
            )
        })?),
        None => root.scenes.first(),
    };
    if let Some(scene) = scene {
        return Ok(scene.nodes.iter().map(|node| node.value()).collect());
    }
    let mut is_child = vec![false; root.nodes.len()];
    for child in root
        .nodes
        .iter()
        .flat_map(|node| node.children.iter().flatten())
    {
        if let Some(flag) = is_child.get_mut(child.value()) {
            *flag = true;
        }
    }
    Ok((0..root.nodes.len()).filter(|&n| !is_child[n]).collect())
}

/// A node's own transform: its matrix (column-major), or translation × rotation × scale;
/// each from `exact`, the JSON's numbers in `f64`, where it holds them, else as the `gltf`
/// crate read them.
fn local_transform(
    node: &json::Node,
    exact: Option<&NodeTransform>,
) -> std::result::Result<DAffine3, String> {
    let exact = exact.cloned().unwrap_or_default();
    let numbers = |exact: Option<Vec<f64>>, read: Option<&[f32]>, len: usize| {
        exact
            .filter(|numbers| numbers.len() == len)
            .or_else(|| read.map(|read| read.iter().map(|&x| f64::from(x)).collect()))
    };
    if let Some(matrix) = numbers(exact.matrix, node.matrix.as_ref().map(|m| &m[..]), 16) {
        let matrix = DMat4::from_cols_slice(&matrix);
        if !matrix.is_finite() {
            return Err(format!("its matrix is not finite: {matrix:?}"));
        }
        let last_row = matrix.row(3);
        if (last_row - glam::DVec4::W).abs().max_element() > AFFINE_ROW_TOLERANCE {
            return Err(format!("its matrix is not affine: last row {last_row}"));
        }
        return Ok(DAffine3::from_mat4(matrix));
    }
    let translation = numbers(
        exact.translation,
        node.translation.as_ref().map(|t| &t[..]),
        3,
    )
    .map_or(DVec3::ZERO, |t| DVec3::from_slice(&t));
    let scale = numbers(exact.scale, node.scale.as_ref().map(|s| &s[..]), 3)
        .map_or(DVec3::ONE, |s| DVec3::from_slice(&s));
    let rotation = numbers(exact.rotation, node.rotation.as_ref().map(|r| &r.0[..]), 4)
        .map_or(DQuat::IDENTITY, |r| DQuat::from_slice(&r));
    if !translation.is_finite() || !scale.is_finite() || !rotation.is_finite() {
        return Err(format!(
            "its translation, rotation or scale is not finite: {translation}, {rotation}, {scale}"
        ));
    }
    // Unit quaternions are required; written as decimals they are only close to unit.
    let length = rotation.length();
    if length == 0.0 {
        return Err("its rotation is the zero quaternion".into());
    }
    Ok(DAffine3::from_scale_rotation_translation(
        scale,
        rotation / length,
        translation,
    ))
}
