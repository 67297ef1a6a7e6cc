//! Keyword arguments read one by one, so that a Python call with many keywords reaches
//! Rust as one value (a camera, a ray query's options).

use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::PyDict;

/// The keyword arguments of one call, taken one by one, so that many keywords reach Rust as
/// one value and a keyword the call does not know is still a `TypeError`.
pub struct Keywords<'py> {
    function: &'static str,
    dict: Option<Bound<'py, PyDict>>,
}

impl<'py> Keywords<'py> {
    /// The keywords `keywords` of the Python function `function` (a copy: taking one does
    /// not change the caller's dict).
    pub fn new(function: &'static str, keywords: Option<&Bound<'py, PyDict>>) -> PyResult<Self> {
        let dict = keywords.map(|dict| dict.copy()).transpose()?;
        Ok(Self { function, dict })
    }

    /// Whether no keyword is left.
    pub fn is_empty(&self) -> bool {
        self.dict.as_ref().is_none_or(|dict| dict.is_empty())
    }

    /// The keyword `name` if given (None counts as not given).
    ///
    /// # Errors
    /// `TypeError` naming the argument when its value has the wrong type.
    pub fn take<T: for<'a> FromPyObject<'a, 'py>>(&self, name: &str) -> PyResult<Option<T>> {
        let Some(dict) = &self.dict else {
            return Ok(None);
        };
        let Some(value) = dict.get_item(name)? else {
            return Ok(None);
        };
        dict.del_item(name)?;
        if value.is_none() {
            return Ok(None);
        }
        value.extract::<T>().map(Some).map_err(|err| {
            let err: PyErr = err.into();
            PyTypeError::new_err(format!("argument '{name}': {err}"))
        })
    }

    /// The keyword `name`, which the call needs.
    ///
    /// # Errors
    /// `TypeError` when it is missing or has the wrong type.
    pub fn required<T: for<'a> FromPyObject<'a, 'py>>(&self, name: &str) -> PyResult<T> {
        self.take(name)?.ok_or_else(|| {
            PyTypeError::new_err(format!(
                "{}() missing required keyword argument: '{name}'",
                self.function
            ))
        })
    }

    /// Ends the reading.
    ///
    /// # Errors
    /// `TypeError` naming a keyword left over.
    pub fn finish(self) -> PyResult<()> {
        if let Some(dict) = &self.dict {
            if let Some((name, _)) = dict.iter().next() {
                return Err(PyTypeError::new_err(format!(
                    "{}() got an unexpected keyword argument {}",
                    self.function,
                    name.repr()?
                )));
            }
        }
        Ok(())
    }
}
