//! `Content`: a result made of blocks, text beside images, audio and embedded resources.

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use serde::{Deserialize, Serialize};

/// One block of a [`Content`] result. Serializes as MCP's content block (`{"type":
/// "image", "data": "<base64>", "mimeType": "image/png"}` and so on), which is how MCP
/// clients receive it; every other provider reads the result as text, where a
/// non-text block is a one-line placeholder naming its type and size.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
#[non_exhaustive]
pub enum ContentBlock {
    /// Text the model reads.
    Text {
        /// The text.
        text: String,
    },
    /// An image.
    Image {
        /// The bytes, base64-encoded.
        data: String,
        /// Its media type, like `image/png`.
        #[serde(rename = "mimeType")]
        mime_type: String,
    },
    /// A sound.
    Audio {
        /// The bytes, base64-encoded.
        data: String,
        /// Its media type, like `audio/wav`.
        #[serde(rename = "mimeType")]
        mime_type: String,
    },
    /// A resource carried whole in the result.
    Resource {
        /// The resource.
        resource: EmbeddedResource,
    },
    /// A tool the result points the model to: the result of a tool search. Anthropic
    /// loads that tool's deferred definition (`defer_loading`); everywhere else it reads
    /// as the tool's name.
    ToolReference {
        /// The tool's name.
        tool_name: String,
    },
}

/// A resource embedded in a result: its URI, media type, and text or bytes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct EmbeddedResource {
    /// Where the resource lives, like `file:///notes/today.md`.
    pub uri: String,
    /// Its media type.
    pub mime_type: String,
    /// Its text, for a text resource.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    /// Its bytes, base64-encoded, for a binary one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub blob: Option<String>,
}

impl ContentBlock {
    /// The block as text for a model that reads text only: text as is, anything else a
    /// placeholder such as `[image/png image, 68 bytes]`.
    pub fn to_text(&self) -> String {
        let bytes = |data: &str| {
            (data.len() / 4 * 3)
                .saturating_sub(data.bytes().rev().take_while(|&b| b == b'=').count())
        };
        match self {
            ContentBlock::Text { text } => text.clone(),
            ContentBlock::Image { data, mime_type } => {
                format!("[{mime_type} image, {} bytes]", bytes(data))
            }
            ContentBlock::Audio { data, mime_type } => {
                format!("[{mime_type} audio, {} bytes]", bytes(data))
            }
            ContentBlock::Resource { resource } => match &resource.text {
                Some(text) => format!(
                    "[resource {} ({})]\n{text}",
                    resource.uri, resource.mime_type
                ),
                None => format!("[resource {} ({})]", resource.uri, resource.mime_type),
            },
            ContentBlock::ToolReference { tool_name } => format!("[tool {tool_name}]"),
        }
    }
}

/// A tool result of several blocks: return it from a `#[tool]` function to send an
/// image, audio or an embedded resource beside text.
///
/// ```
/// # use toolwright::{tool, Content};
/// /// Render the chart of this week's sales.
/// #[tool(effect = "read_only")]
/// fn sales_chart() -> Content {
///     let png: Vec<u8> = vec![0x89, b'P', b'N', b'G'];
///     Content::new().text("Sales rose 4% this week.").image(&png, "image/png")
/// }
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Content {
    /// The blocks, in order.
    pub blocks: Vec<ContentBlock>,
}

impl Content {
    /// No blocks yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds a text block.
    pub fn text(mut self, text: impl Into<String>) -> Self {
        self.blocks.push(ContentBlock::Text { text: text.into() });
        self
    }

    /// Adds an image of media type `mime_type`.
    pub fn image(mut self, bytes: &[u8], mime_type: impl Into<String>) -> Self {
        self.blocks.push(ContentBlock::Image {
            data: STANDARD.encode(bytes),
            mime_type: mime_type.into(),
        });
        self
    }

    /// Adds a sound of media type `mime_type`.
    pub fn audio(mut self, bytes: &[u8], mime_type: impl Into<String>) -> Self {
        self.blocks.push(ContentBlock::Audio {
            data: STANDARD.encode(bytes),
            mime_type: mime_type.into(),
        });
        self
    }

    /// Adds a text resource.
    pub fn resource_text(
        mut self,
        uri: impl Into<String>,
        mime_type: impl Into<String>,
        text: impl Into<String>,
    ) -> Self {
        self.blocks.push(ContentBlock::Resource {
            resource: EmbeddedResource {
                uri: uri.into(),
                mime_type: mime_type.into(),
                text: Some(text.into()),
                blob: None,
            },
        });
        self
    }

    /// Adds a binary resource.
    pub fn resource_bytes(
        mut self,
        uri: impl Into<String>,
        mime_type: impl Into<String>,
        bytes: &[u8],
    ) -> Self {
        self.blocks.push(ContentBlock::Resource {
            resource: EmbeddedResource {
                uri: uri.into(),
                mime_type: mime_type.into(),
                text: None,
                blob: Some(STANDARD.encode(bytes)),
            },
        });
        self
    }

    /// The blocks as text for a model that reads text only, one block per paragraph.
    pub fn to_text(&self) -> String {
        text_of(&self.blocks)
    }
}

pub(crate) fn text_of(blocks: &[ContentBlock]) -> String {
    blocks
        .iter()
        .map(ContentBlock::to_text)
        .collect::<Vec<_>>()
        .join("\n\n")
}
