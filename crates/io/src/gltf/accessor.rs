//! Reading accessors: each one's type, component type, buffer view, offset, stride and count
//! checked against the bytes actually present before a single element is read.

use ::gltf::json;
use glam::{Vec2, Vec3};
use json::accessor::{ComponentType, Type};
use json::validation::Checked;

use super::document::Document;
use super::malformed;
use crate::source::excerpt;
use crate::source::Source;
use crate::{Error, Place, Result};

/// A checked accessor: `count` elements of `size` bytes, `stride` bytes apart, the first at
/// the start of `bytes`, which holds exactly `(count - 1) * stride + size` bytes.
struct Elements<'a> {
    bytes: &'a [u8],
    stride: usize,
    count: usize,
    component: ComponentType,
    normalized: bool,
}

impl<'a> Elements<'a> {
    /// Each element's bytes (at least the element's size), in order.
    fn iter(&self) -> impl Iterator<Item = &'a [u8]> + 'a {
        let bytes = self.bytes;
        // `bytes` ends with the last element, so every chunk holds a whole element.
        bytes.chunks(self.stride.max(1)).take(self.count)
    }
}

/// The accessor's place in the file.
fn place(index: usize) -> Place {
    Place::Element {
        kind: "accessor",
        index,
    }
}

/// An error in accessor `index`.
fn invalid(source: Source, index: usize, problem: String) -> Error {
    malformed(source.at(place(index)), problem)
}

/// Accessor `index`, checked: it exists, is of type `expected` with one of `components`,
/// and every byte of its elements lies inside its buffer view and the view inside its buffer.
fn elements<'a>(
    document: &'a Document,
    index: usize,
    expected: Type,
    components: &[ComponentType],
    source: Source,
) -> Result<Elements<'a>> {
    let root = &document.root;
    let accessor = root.accessors.get(index).ok_or_else(|| {
        invalid(
            source,
            index,
            format!("no such accessor ({} defined)", root.accessors.len()),
        )
    })?;
    let (Checked::Valid(kind), Checked::Valid(component)) =
        (&accessor.type_, &accessor.component_type)
    else {
        return Err(invalid(
            source,
            index,
            "unknown type or component type".into(),
        ));
    };
    let component = component.0;
    if *kind != expected || !components.contains(&component) {
        return Err(invalid(
            source,
            index,
            format!(
                "{kind:?} of {component:?}, where {expected:?} of one of {components:?} is needed"
            ),
        ));
    }
    if accessor.sparse.is_some() {
        return Err(Error::Unsupported {
            at: source.at(place(index)),
            what: "sparse accessors".into(),
        });
    }
    let Some(view_index) = accessor.buffer_view else {
        return Err(Error::Unsupported {
            at: source.at(place(index)),
            what: "an accessor without a buffer view".into(),
        });
    };
    let view_index = view_index.value();
    let view = root.buffer_views.get(view_index).ok_or_else(|| {
        invalid(
            source,
            index,
            format!("its buffer view {view_index} does not exist"),
        )
    })?;
    let buffer = document.buffers.get(view.buffer.value()).ok_or_else(|| {
        invalid(
            source,
            index,
            format!(
                "buffer view {view_index} names buffer {}, which does not exist",
                view.buffer.value()
            ),
        )
    })?;

    // The view inside its buffer.
    let view_start = view.byte_offset.map_or(0, |offset| offset.0);
    let view_end = view_start.checked_add(view.byte_length.0);
    let view_bytes = view_end
        .filter(|&end| end <= buffer.len() as u64)
        .and_then(|end| buffer.get(view_start as usize..end as usize))
        .ok_or_else(|| {
            invalid(
                source,
                index,
                format!(
                    "buffer view {view_index} (offset {view_start}, length {}) runs past the end \
                     of buffer {} ({} bytes)",
                    view.byte_length.0,
                    view.buffer.value(),
                    buffer.len()
                ),
            )
        })?;

    // The elements inside the view.
    let size = component.size() * kind.multiplicity();
    let stride = view.byte_stride.map_or(size, |stride| stride.0);
    if stride < size {
        return Err(invalid(
            source,
            index,
            format!(
                "buffer view {view_index}'s stride {stride} is less than the {size}-byte element"
            ),
        ));
    }
    let offset = accessor.byte_offset.map_or(0, |offset| offset.0);
    let count = accessor.count.0;
    let span = match count {
        0 => Some(0),
        n => (n - 1)
            .checked_mul(stride as u64)
            .and_then(|last| last.checked_add(size as u64)),
    };
    let bytes = span
        .and_then(|span| offset.checked_add(span).map(|end| (offset, end)))
        .filter(|&(_, end)| end <= view_bytes.len() as u64)
        .and_then(|(start, end)| view_bytes.get(start as usize..end as usize))
        .ok_or_else(|| {
            invalid(
                source,
                index,
                format!(
                    "{count} elements of {size} bytes, {stride} apart, from offset {offset} \
                     run past the end of buffer view {view_index} ({} bytes)",
                    view_bytes.len()
                ),
            )
        })?;
    Ok(Elements {
        bytes,
        stride,
        // At most one element per byte of the view, so this fits.
        count: count as usize,
        component,
        normalized: accessor.normalized,
    })
}

/// The `k`th little-endian 32-bit float of an element.
fn f32_at(element: &[u8], k: usize) -> f32 {
    let at = 4 * k;
    f32::from_le_bytes([
        element[at],
        element[at + 1],
        element[at + 2],
        element[at + 3],
    ])
}

/// The `k`th component of an element as an unsigned integer.
fn unsigned_at(element: &[u8], component: ComponentType, k: usize) -> u32 {
    match component {
        ComponentType::U8 => u32::from(element[k]),
        ComponentType::U16 => u32::from(u16::from_le_bytes([element[2 * k], element[2 * k + 1]])),
        _ => u32::from_le_bytes([
            element[4 * k],
            element[4 * k + 1],
            element[4 * k + 2],
            element[4 * k + 3],
        ]),
    }
}

/// Accessor `index` as finite 3D vectors of floats (positions, normals).
pub(super) fn vec3s(document: &Document, index: usize, source: Source) -> Result<Vec<Vec3>> {
    let elements = elements(document, index, Type::Vec3, &[ComponentType::F32], source)?;
    let mut values = Vec::with_capacity(elements.count);
    for element in elements.iter() {
        let value = Vec3::new(f32_at(element, 0), f32_at(element, 1), f32_at(element, 2));
        if !value.is_finite() {
            return Err(non_finite(source, index, &value.to_string()));
        }
        values.push(value);
    }
    Ok(values)
}

/// Accessor `index` as texture coordinates: floats, or normalized unsigned bytes or shorts
/// (glTF 2.0, section 3.7.2.1), mapped to `[0, 1]`.
pub(super) fn vec2s(document: &Document, index: usize, source: Source) -> Result<Vec<Vec2>> {
    let components = [ComponentType::F32, ComponentType::U8, ComponentType::U16];
    let elements = elements(document, index, Type::Vec2, &components, source)?;
    let scale = match elements.component {
        ComponentType::F32 => None,
        _ if !elements.normalized => {
            return Err(invalid(
                source,
                index,
                "integer texture coordinates must be normalized".into(),
            ))
        }
        ComponentType::U8 => Some(f32::from(u8::MAX)),
        _ => Some(f32::from(u16::MAX)),
    };
    let mut values = Vec::with_capacity(elements.count);
    for element in elements.iter() {
        let value = match scale {
            None => Vec2::new(f32_at(element, 0), f32_at(element, 1)),
            Some(max) => Vec2::new(
                unsigned_at(element, elements.component, 0) as f32 / max,
                unsigned_at(element, elements.component, 1) as f32 / max,
            ),
        };
        if !value.is_finite() {
            return Err(non_finite(source, index, &value.to_string()));
        }
        values.push(value);
    }
    Ok(values)
}

/// Accessor `index` as vertex indices: unsigned bytes, shorts or ints. Their range is the
/// caller's to check.
pub(super) fn indices(document: &Document, index: usize, source: Source) -> Result<Vec<u32>> {
    let components = [ComponentType::U8, ComponentType::U16, ComponentType::U32];
    let elements = elements(document, index, Type::Scalar, &components, source)?;
    Ok(elements
        .iter()
        .map(|element| unsigned_at(element, elements.component, 0))
        .collect())
}

/// A value that is NaN or infinite, in accessor `index`.
fn non_finite(source: Source, index: usize, found: &str) -> Error {
    Error::NonFiniteValue {
        at: source.at(place(index)),
        found: excerpt(found),
    }
}
