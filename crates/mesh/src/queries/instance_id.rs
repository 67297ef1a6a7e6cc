//! The handle a scene gives each instance, named here because filters and answers carry it.

/// An instance's handle in a [`Scene`](crate::Scene): stable while the instance is there, never reused after
/// it is removed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct InstanceId(u32);

impl InstanceId {
    /// The id's number (instances are numbered from 0 in the order they were added).
    pub fn index(self) -> u32 {
        self.0
    }

    /// The id with this number (as from [`InstanceId::index`], stored by an editor, say).
    /// Not checked: a scene answers an id it does not hold with
    /// [`Error::UnknownInstance`](crate::Error::UnknownInstance) or `None`.
    pub const fn from_index(index: u32) -> Self {
        Self(index)
    }
}
