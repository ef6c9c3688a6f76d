//! The object URLs behind a panel's download links: made from text, kept, and revoked
//! together when the panel's downloads are replaced.

use super::super::dom::object_url;

/// The object URLs of a panel's current downloads.
#[derive(Default)]
pub struct Downloads {
    urls: Vec<String>,
}

impl Downloads {
    /// An object URL of `text` with type `mime`, kept until [`Downloads::revoke_all`].
    pub fn url(&mut self, text: &str, mime: &str) -> Option<String> {
        let url = object_url(text, mime)?;
        self.urls.push(url.clone());
        Some(url)
    }

    /// Revokes every URL made so far (the links that used them are being replaced).
    pub fn revoke_all(&mut self) {
        for url in self.urls.drain(..) {
            let _ = web_sys::Url::revoke_object_url(&url);
        }
    }
}
