//! Texture files registered: KTX2 (Basis Universal transcoded for this device), `.astc` and
//! DDS, read by the `files` and `ktx2` readers and registered layer by layer.

#[cfg(feature = "basis")]
use crate::{read_basis, BasisTarget};
use crate::{read_file, read_ktx2, BasisMode, FileError, FileKind, FileLimits, FileTexture};
use crate::{Batcher, TextureDesc, TextureError, TextureId};

impl Batcher {
    pub(crate) fn register_ktx2(&mut self, bytes: &[u8], like: &TextureDesc) -> Result<Vec<TextureId>, FileError> {
        let budget = self.budget();
        let limits = FileLimits::new(budget.budget_bytes, budget.max_layers_per_array);
        let (file, transcoded) = match read_ktx2(bytes, like, limits) {
            // read_ktx2 tells a Basis file but does not know the device: this batcher does.
            Err(FileError::NotTranscoded { mode, .. }) => (self.transcoded(bytes, like, limits, mode)?, true),
            read => (read?, false),
        };
        let ids = self.register_layers(&file).map_err(|(layer, source)| FileError::Texture {
            kind: FileKind::Ktx2,
            layer,
            source,
        })?;
        if transcoded {
            self.count_transcoded(ids.len() as u64);
        }
        Ok(ids)
    }

    pub(crate) fn register_file(&mut self, bytes: &[u8], like: &TextureDesc) -> Result<Vec<TextureId>, FileError> {
        let kind = match FileKind::of(bytes) {
            Some(FileKind::Ktx2) => return self.register_ktx2(bytes, like),
            Some(kind) => kind,
            None => return Err(FileError::unknown_kind(bytes)),
        };
        let budget = self.budget();
        let file = read_file(bytes, like, FileLimits::new(budget.budget_bytes, budget.max_layers_per_array))?;
        self.register_layers(&file).map_err(|(layer, source)| FileError::Texture { kind, layer, source })
    }

    /// Registers each layer of `file`; on a refusal frees the layers registered before it and
    /// returns the layer and why.
    pub(crate) fn register_layers(&mut self, file: &FileTexture) -> Result<Vec<TextureId>, (u32, TextureError)> {
        let d = file.desc;
        let max = self.budget().max_texture_size_px;
        if d.width_px > max || d.height_px > max {
            return Err((0, TextureError::TooLarge { width_px: d.width_px, height_px: d.height_px, max_px: max }));
        }
        let mut ids = Vec::with_capacity(file.layers.len());
        for (layer, data) in file.layers.iter().enumerate() {
            let data = if d.format.is_compressed() { &data[..] } else { data.get(..d.byte_len()).unwrap_or(data) };
            match self.register(&d, data) {
                Ok(id) => ids.push(id),
                Err(source) => {
                    for id in ids {
                        // Just registered: a free cannot fail.
                        let _ = self.free(id);
                    }
                    return Err((layer as u32, source));
                }
            }
        }
        Ok(ids)
    }

    /// A Basis file transcoded for this device ([`read_basis`]), its target logged once at
    /// `debug!`.
    #[cfg(feature = "basis")]
    fn transcoded(
        &mut self,
        bytes: &[u8],
        like: &TextureDesc,
        limits: FileLimits,
        mode: BasisMode,
    ) -> Result<FileTexture, FileError> {
        let families = self.budget().format_families;
        let file = read_basis(bytes, like, limits, families)?;
        let target = BasisTarget::choose(families, &file.desc);
        if self.note_transcode_target(target) {
            log::debug!(
                "layerbatch: Basis Universal files are transcoded to {target} on this device ({families}); the first, \
                 {mode}, to {}",
                file.desc.format
            );
        }
        Ok(file)
    }

    /// A Basis file in a build without the `basis` feature: refused.
    #[cfg(not(feature = "basis"))]
    fn transcoded(
        &mut self,
        _bytes: &[u8],
        _like: &TextureDesc,
        _limits: FileLimits,
        mode: BasisMode,
    ) -> Result<FileTexture, FileError> {
        Err(FileError::NotTranscoded { mode, how: "build layerbatch-core with its `basis` feature to transcode it" })
    }
}
