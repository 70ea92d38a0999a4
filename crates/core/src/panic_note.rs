//! The message of the panic that trapped a wasm call. Release builds abort on
//! panic, which in wasm is a trap the caller sees as a `RuntimeError` saying
//! little; both wasm modules keep the message here so the page can say what
//! went wrong (`lastPanic`).

use std::sync::{Mutex, Once};

static LAST: Mutex<Option<String>> = Mutex::new(None);

/// Installs, once, a panic hook that keeps the message for [`take`]. Only in
/// wasm: natively the default hook's report is the better one.
pub fn keep() {
    if cfg!(target_arch = "wasm32") {
        static ONCE: Once = Once::new();
        ONCE.call_once(|| {
            std::panic::set_hook(Box::new(|info| {
                if let Ok(mut last) = LAST.lock() {
                    *last = Some(info.to_string());
                }
            }))
        });
    }
}

/// The kept message, once.
pub fn take() -> Option<String> {
    LAST.lock().ok()?.take()
}
