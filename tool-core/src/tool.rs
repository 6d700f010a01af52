//! The `Tool` trait every `#[tool]` companion implements, and what goes in and out of it.

use std::any::{Any, TypeId};
use std::future::Future;
use std::marker::PhantomData;
use std::mem::MaybeUninit;
use std::pin::Pin;
use std::sync::Arc;

use serde::Serialize;
use serde_json::Value;

use crate::context::{Context, ContextType};
use crate::effect::Effect;
use crate::error::ToolError;
use crate::spec::ToolSpec;

/// What a tool call ends with: the output, or the error the model reads.
pub type ToolOutcome = Result<ToolOutput, ToolError>;

/// What a tool's reconciliation ([`CallHooks::reconcile`]) found out about a call whose
/// outcome was unknown.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum Reconciled {
    /// The call took effect: what it returned, as the tool would have returned it.
    Happened(ToolOutcome),
    /// It did not take effect: the call runs now.
    DidNotHappen,
    /// The world cannot say: the call stays "outcome unknown", with why.
    Unknown(String),
}

/// The future [`CallHooks::reconcile`] returns.
pub type ReconcileFuture<'a> = Pin<Box<dyn Future<Output = Reconciled> + Send + 'a>>;

/// The future a tool call returns: already finished for a synchronous tool (nothing is
/// allocated, and the dispatcher does not suspend), a boxed future otherwise.
///
/// ```
/// # use toolwright::{ToolFuture, ToolOutput};
/// // A synchronous tool has its outcome at once.
/// let done = ToolFuture::ready(Ok(ToolOutput::Text("42".into())));
/// assert!(done.is_ready());
/// // An asynchronous one is polled like any future.
/// let later = ToolFuture::new(async { Ok(ToolOutput::Empty) });
/// assert!(!later.is_ready());
/// ```
#[must_use = "a tool future does nothing for an asynchronous tool unless awaited"]
pub struct ToolFuture<'a>(FutureState<'a>);

enum FutureState<'a> {
    /// The outcome, until it is taken.
    Ready(Option<ToolOutcome>),
    Pending(Pin<Box<dyn Future<Output = ToolOutcome> + Send + 'a>>),
}

impl<'a> ToolFuture<'a> {
    /// A future that is already finished with `outcome`.
    #[inline]
    pub fn ready(outcome: ToolOutcome) -> Self {
        Self(FutureState::Ready(Some(outcome)))
    }

    /// A future that runs `future` (boxed).
    pub fn new(future: impl Future<Output = ToolOutcome> + Send + 'a) -> Self {
        Self(FutureState::Pending(Box::pin(future)))
    }

    /// Whether the outcome is there without polling.
    pub fn is_ready(&self) -> bool {
        matches!(self.0, FutureState::Ready(Some(_)))
    }

    /// The outcome, when it is there without polling (not taken).
    pub(crate) fn outcome(&self) -> Option<&ToolOutcome> {
        match &self.0 {
            FutureState::Ready(outcome) => outcome.as_ref(),
            FutureState::Pending(_) => None,
        }
    }

    /// The outcome, when it is there without polling; the future itself otherwise.
    #[inline]
    pub fn into_ready(self) -> Result<ToolOutcome, Self> {
        match self.0 {
            FutureState::Ready(Some(outcome)) => Ok(outcome),
            state => Err(Self(state)),
        }
    }
}

impl Future for ToolFuture<'_> {
    type Output = ToolOutcome;

    fn poll(self: Pin<&mut Self>, cx: &mut std::task::Context<'_>) -> std::task::Poll<ToolOutcome> {
        match &mut self.get_mut().0 {
            FutureState::Ready(outcome) => {
                std::task::Poll::Ready(outcome.take().unwrap_or_else(|| {
                    Err(
                        ToolError::internal("the tool's future was polled after it finished")
                            .with_retryable(false),
                    )
                }))
            }
            FutureState::Pending(future) => future.as_mut().poll(cx),
        }
    }
}

impl<'a> From<Pin<Box<dyn Future<Output = ToolOutcome> + Send + 'a>>> for ToolFuture<'a> {
    fn from(future: Pin<Box<dyn Future<Output = ToolOutcome> + Send + 'a>>) -> Self {
        Self(FutureState::Pending(future))
    }
}

impl std::fmt::Debug for ToolFuture<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(if self.is_ready() {
            "ToolFuture(ready)"
        } else {
            "ToolFuture(pending)"
        })
    }
}

/// A tool a model can call. `#[tool]` implements it on a companion unit struct named
/// after the function in PascalCase (`search_files` → `SearchFiles`); implement it by
/// hand only for tools whose schema is not known at compile time.
///
/// A call has two steps so that the arguments are checked before anything else (a
/// policy, a person approving) looks at them: [`Tool::prepare`] validates and reads the
/// arguments, [`Tool::run`] runs the tool with them. [`Tool::call`] does both.
pub trait Tool: Send + Sync + 'static {
    /// The tool's contract: name, description, schema, effect. Built once and cached.
    fn spec(&self) -> &ToolSpec;

    /// The types the tool's `#[ctx]` parameters take from the [`Context`].
    fn context_types(&self) -> Vec<ContextType> {
        Vec::new()
    }

    /// Validates the arguments and reads them into the tool's parameters. On failure the
    /// error lists every problem, each with its JSON path
    /// ([`ErrorKind::InvalidArguments`](crate::error::ErrorKind::InvalidArguments)).
    fn prepare(&self, args: Arguments<'_>) -> Result<Prepared, ToolError>;

    /// Runs the tool with arguments [`Tool::prepare`] returned. The tool's own errors come
    /// back as the [`ToolError`] it chose.
    ///
    /// A synchronous tool does its work here and returns [`ToolFuture::ready`]; an
    /// asynchronous one returns [`ToolFuture::new`] and does its work when polled.
    fn run<'a>(&'a self, ctx: &'a Context, args: Prepared) -> ToolFuture<'a>;

    /// [`Tool::run`], given what the dispatcher knows of the call beside its arguments:
    /// its id and the idempotency key it runs under. The dispatcher calls this; a tool
    /// that passes the call on (an imported MCP tool sends the key to its server, which
    /// then runs the call once) overrides it, every other tool keeps this default.
    fn run_call<'a>(
        &'a self,
        ctx: &'a Context,
        call: CallInfo<'a>,
        args: Prepared,
    ) -> ToolFuture<'a> {
        let _ = call;
        self.run(ctx, args)
    }

    /// Where the tool's results come from when they are not this program's own: an
    /// imported MCP server's name and address. The dispatcher marks each result with it
    /// ([`ToolResult::source`](crate::ToolResult::source)), and an MCP server re-serving
    /// the tool passes it on in the result's `_meta` (`dev.toolwright/source`), so what a
    /// stranger wrote is never mistaken for the program's own words. `None` (the
    /// default) for the program's own tools. Asked once, when the registry is built.
    fn source(&self) -> Option<Arc<str>> {
        None
    }

    /// What the tool says of one call beside running it (its effect, why it needs
    /// approval, a dry run's words, the resource it writes, whether it happened after a
    /// crash), for a tool that declares any of it (`#[tool(classify = ..., approval =
    /// ..., describe = ..., reconcile = ...)]`, `#[arg(resource)]`). `None` (the default)
    /// for every other tool: one method here, not one per hook, keeps what each tool
    /// compiles to small.
    fn hooks(&self) -> Option<&dyn CallHooks> {
        None
    }

    /// [`Tool::prepare`], then [`Tool::run`].
    fn call<'a>(&'a self, ctx: &'a Context, args: Arguments<'a>) -> ToolFuture<'a> {
        match self.prepare(args) {
            Ok(prepared) => self.run(ctx, prepared),
            Err(error) => ToolFuture::ready(Err(error)),
        }
    }
}

/// What a tool says of one call beside running it, each from the call's prepared
/// arguments; [`Tool::hooks`] returns it for a tool that has any. Each method's default
/// says nothing, so an implementation overrides only what it knows.
pub trait CallHooks: Send + Sync {
    /// The effect of this one call, for a tool whose declared effect is
    /// [`Effect::Dynamic`]: what its classifier (`#[tool(effect = "dynamic", classify =
    /// path)]`) says of these arguments. The dispatcher asks only such tools; `None` (the
    /// default), [`Effect::Dynamic`] or a panic count as the riskiest class.
    fn effect_of(&self, args: &Prepared) -> Option<Effect> {
        let _ = args;
        None
    }

    /// Why this call needs a person's approval, if it does
    /// (`#[tool(approval = path)]`).
    fn approval_reason(&self, args: &Prepared) -> Option<String> {
        let _ = args;
        None
    }

    /// What this call would do, in words, for a dry run (`#[tool(describe = path)]`).
    fn describe_call(&self, args: &Prepared) -> Option<String> {
        let _ = args;
        None
    }

    /// The resource this call writes (`#[arg(resource)]`): writes to different resources
    /// may run together.
    fn resource_key(&self, args: &Prepared) -> Option<String> {
        let _ = args;
        None
    }

    /// Whether a call of this tool took effect, asked of the world when its process died
    /// between starting it and recording how it ended (`#[tool(reconcile = path)]`): a
    /// task's call that cannot simply run again (a `write` or `destructive` tool without
    /// an idempotency claim) is then decided by the answer instead of failing "outcome
    /// unknown", and so is a keyed call whose earlier attempt left its claim without an
    /// outcome (what happened is recorded under the key; "did not happen" tells the
    /// caller a new key may run it). `call` says which call: its idempotency key, by
    /// which a provider can be asked ("is there a payment with this key?"). `None` (the
    /// default) when the tool has no way to ask.
    fn reconcile<'a>(
        &'a self,
        ctx: &'a Context,
        call: CallInfo<'a>,
        args: &'a Prepared,
    ) -> Option<ReconcileFuture<'a>> {
        let _ = (ctx, call, args);
        None
    }
}

/// What the dispatcher knows of a call beside its arguments, for [`Tool::run_call`] and
/// [`CallHooks::reconcile`].
#[derive(Clone, Copy)]
#[non_exhaustive]
pub struct CallInfo<'a> {
    /// The call's id (the provider's, or `<run>/<n>` for a call a program made).
    pub id: &'a str,
    /// The idempotency key the call claimed, scoped to its caller (64 hex digits), when
    /// it runs under one: its effect must not happen twice.
    pub idempotency_key: Option<&'a str>,
    /// A person approved this exact call (its ticket was resumed). A tool that asks for
    /// approval while it runs (an error of kind `awaiting_approval`, for which the
    /// dispatcher issues a ticket) goes on without asking again.
    pub approved: bool,
    /// Where the registry keeps tasks (its idempotency store's `tasks`), when it keeps
    /// them: a
    /// tool that hands a call to another server, which makes it a task there, records the
    /// task here under [`idempotency_key`](CallInfo::idempotency_key), so that after a
    /// restart its [reconciliation](CallHooks::reconcile) follows the task to its end
    /// instead of sending the call again (an imported MCP tool does).
    pub tasks: Option<&'a dyn crate::store::TaskStore>,
}

impl std::fmt::Debug for CallInfo<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CallInfo")
            .field("id", &self.id)
            .field("idempotency_key", &self.idempotency_key)
            .field("approved", &self.approved)
            .field("tasks", &self.tasks.is_some())
            .finish()
    }
}

/// A call's arguments, validated and read into the tool's own types by
/// [`Tool::prepare`]; opaque to everyone but the tool.
///
/// Arguments of up to 32 bytes (one string and a few numbers, say) are held inline, so
/// a call allocates nothing for them; larger ones are boxed.
pub struct Prepared {
    /// The type of the values held.
    type_id: TypeId,
    /// The values themselves when they fit, else a `Box` of them.
    storage: MaybeUninit<Inline>,
    /// Drops what `storage` holds.
    drop: unsafe fn(*mut Inline),
    /// Lends the values to one thread at a time only (they are `Send`, maybe not `Sync`).
    _not_sync: PhantomData<std::cell::Cell<()>>,
}

/// The space for arguments held inline.
type Inline = [usize; 4];

/// Whether a `T` is held inline (else a `Box<T>` is).
const fn fits<T>() -> bool {
    size_of::<T>() <= size_of::<Inline>() && align_of::<T>() <= align_of::<Inline>()
}

/// Drops the `T` (or the `Box<T>`) `storage` holds.
///
/// # Safety
/// `storage` holds a `T` as [`Prepared::new`] wrote it, and is not used again.
unsafe fn drop_held<T>(storage: *mut Inline) {
    // SAFETY: the caller's contract.
    unsafe {
        if const { fits::<T>() } {
            storage.cast::<T>().drop_in_place();
        } else {
            storage.cast::<Box<T>>().drop_in_place();
        }
    }
}

impl Prepared {
    /// Wraps a tool's argument values.
    pub fn new<T: Any + Send>(args: T) -> Self {
        let mut storage = MaybeUninit::<Inline>::uninit();
        // SAFETY: `fits` checked size and alignment; a `Box` always fits.
        unsafe {
            if const { fits::<T>() } {
                storage.as_mut_ptr().cast::<T>().write(args);
            } else {
                storage.as_mut_ptr().cast::<Box<T>>().write(Box::new(args));
            }
        }
        Prepared {
            type_id: TypeId::of::<T>(),
            storage,
            drop: drop_held::<T>,
            _not_sync: PhantomData,
        }
    }

    /// A reference to the argument values, if they are of type `T`.
    pub fn downcast_ref<T: Any>(&self) -> Option<&T> {
        if self.type_id != TypeId::of::<T>() {
            return None;
        }
        let storage = self.storage.as_ptr();
        // SAFETY: `new::<T>` wrote a `T`, or a `Box<T>`, as `fits` says.
        Some(unsafe {
            if const { fits::<T>() } {
                &*storage.cast::<T>()
            } else {
                &**storage.cast::<Box<T>>()
            }
        })
    }

    /// The argument values, if they are of type `T`.
    pub fn downcast<T: Any>(self) -> Result<T, ToolError> {
        if self.type_id != TypeId::of::<T>() {
            return Err(wrong_tool());
        }
        let this = std::mem::ManuallyDrop::new(self);
        let storage = this.storage.as_ptr();
        // SAFETY: `new::<T>` wrote a `T`, or a `Box<T>`, as `fits` says; `this` is not
        // dropped, so the value is moved out once.
        Ok(unsafe {
            if const { fits::<T>() } {
                storage.cast::<T>().read()
            } else {
                *storage.cast::<Box<T>>().read()
            }
        })
    }
}

/// The error of arguments prepared by one tool and run by another: not in
/// [`Prepared::downcast`] itself, which is compiled once for every tool.
#[cold]
fn wrong_tool() -> ToolError {
    ToolError::internal("prepared arguments were passed to a different tool").with_retryable(false)
}

impl Drop for Prepared {
    fn drop(&mut self) {
        // SAFETY: `drop` is the `drop_held` of the type `new` wrote, and runs once.
        unsafe { (self.drop)(self.storage.as_mut_ptr()) }
    }
}

impl std::fmt::Debug for Prepared {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Prepared(..)")
    }
}

/// A call's arguments as they arrived: a raw JSON string (OpenAI sends them so) or an
/// already-parsed JSON value (Anthropic, Gemini, MCP).
#[derive(Debug, Clone, Copy)]
pub enum Arguments<'a> {
    /// Raw JSON text.
    Json(&'a str),
    /// A parsed JSON value.
    Value(&'a Value),
}

impl<'a> From<&'a str> for Arguments<'a> {
    fn from(json: &'a str) -> Self {
        Arguments::Json(json)
    }
}

impl<'a> From<&'a String> for Arguments<'a> {
    fn from(json: &'a String) -> Self {
        Arguments::Json(json)
    }
}

impl<'a> From<&'a Value> for Arguments<'a> {
    fn from(value: &'a Value) -> Self {
        Arguments::Value(value)
    }
}

/// What a tool returned, as the model will read it.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(tag = "kind", content = "value", rename_all = "snake_case")]
#[non_exhaustive]
pub enum ToolOutput {
    /// Text, sent as is (a tool that returns `String`).
    Text(String),
    /// A JSON value (a tool that returns any other `Serialize` type).
    Json(Value),
    /// Nothing (a tool that returns `()`).
    Empty,
    /// Data for the harness and the text the model reads instead (a tool that returns an
    /// [`Observation`](crate::observation::Observation)).
    Observation {
        /// The full result, for the harness.
        data: Value,
        /// What the model reads.
        for_model: String,
    },
    /// Blocks of text, images, audio and embedded resources (a tool that returns
    /// [`Content`](crate::content::Content)). MCP clients receive the blocks; other providers read
    /// them as text.
    Content(Vec<crate::content::ContentBlock>),
}

impl ToolOutput {
    /// The output of a returned value: a JSON string becomes text, `null` nothing, any
    /// other value JSON.
    pub fn from_value(value: Value) -> Self {
        match value {
            Value::String(text) => ToolOutput::Text(text),
            Value::Null => ToolOutput::Empty,
            other => ToolOutput::Json(other),
        }
    }

    /// The output as text for a model: text as is, JSON compact, nothing as "".
    pub fn to_text(&self) -> String {
        match self {
            ToolOutput::Text(text) => text.clone(),
            ToolOutput::Json(value) => value.to_string(),
            ToolOutput::Empty => String::new(),
            ToolOutput::Observation { for_model, .. } => for_model.clone(),
            ToolOutput::Content(blocks) => crate::content::text_of(blocks),
        }
    }
}

/// What a tool may return: anything serde can serialize (a `String` is the model's text as
/// is; other values are JSON), [`Content`](crate::content::Content) blocks, or an
/// [`Observation`](crate::observation::Observation) (one text for the model, full data for the harness).
/// `#[tool]` converts a function's `Ok` value with it; implement it for a type whose model
/// view you want to choose yourself.
///
/// ```
/// use toolwright::{IntoToolOutput, ToolOutput};
///
/// assert_eq!("done".to_owned().into_tool_output().unwrap(), ToolOutput::Text("done".into()));
/// assert!(matches!(vec![1, 2].into_tool_output().unwrap(), ToolOutput::Json(_)));
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be returned by a tool: it does not implement `serde::Serialize`",
    label = "the model reads a tool's result as JSON",
    note = "derive `serde::Serialize` on `{Self}`, return a `String`, or implement `toolwright::IntoToolOutput` for it"
)]
pub trait IntoToolOutput {
    /// The value as the model will read it.
    fn into_tool_output(self) -> Result<ToolOutput, ToolError>;
}

#[diagnostic::do_not_recommend]
impl<T: Serialize + 'static> IntoToolOutput for T {
    fn into_tool_output(self) -> Result<ToolOutput, ToolError> {
        // A `String` is text as is: moved, not copied through a JSON value.
        let mut slot = Some(self);
        if let Some(text) = (&mut slot as &mut dyn std::any::Any).downcast_mut::<Option<String>>() {
            return Ok(ToolOutput::Text(text.take().unwrap_or_default()));
        }
        serde_json::to_value(&slot)
            .map(ToolOutput::from_value)
            .map_err(|error| {
                ToolError::internal(format!(
                    "the tool's result could not be serialized: {error}"
                ))
                .with_retryable(false)
            })
    }
}

/// A [`Content`](crate::content::Content) value's blocks, as they are.
#[diagnostic::do_not_recommend]
impl IntoToolOutput for crate::content::Content {
    fn into_tool_output(self) -> Result<ToolOutput, ToolError> {
        Ok(ToolOutput::Content(self.blocks))
    }
}

#[cfg(test)]
mod tests {
    use super::Prepared;

    /// Arguments small enough to sit inline and ones that are boxed both come back
    /// whole, and only as their own type.
    #[test]
    fn prepared_arguments_round_trip_inline_and_boxed() {
        let small = Prepared::new((String::from("Aalto"), 9_u8));
        assert_eq!(small.downcast_ref::<(String, u8)>().unwrap().1, 9);
        assert_eq!(small.downcast::<(String, u8)>().unwrap().0, "Aalto");

        let large = Prepared::new([7_u64; 32]);
        assert!(large.downcast_ref::<u64>().is_none());
        assert_eq!(large.downcast::<[u64; 32]>().unwrap()[31], 7);

        let error = Prepared::new(1_u8).downcast::<String>().unwrap_err();
        assert_eq!(error.kind, crate::error::ErrorKind::Internal);
    }

    /// What a `Prepared` holds is dropped exactly once: when it is dropped unread, when
    /// it is read out, and when a read for another type fails.
    #[test]
    fn prepared_arguments_are_dropped_exactly_once() {
        use std::sync::Arc;
        let held = Arc::new(());
        let large = |arc: &Arc<()>| (arc.clone(), [0_u64; 8]);
        drop(Prepared::new(held.clone()));
        drop(Prepared::new(large(&held)));
        assert_eq!(Arc::strong_count(&held), 1, "dropped unread");
        let read = Prepared::new(held.clone()).downcast::<Arc<()>>().unwrap();
        let read_large = Prepared::new(large(&held));
        let read_large = read_large.downcast::<(Arc<()>, [u64; 8])>().unwrap();
        assert_eq!(
            Arc::strong_count(&held),
            3,
            "moved out, not copied or dropped"
        );
        drop((read, read_large));
        assert!(Prepared::new(held.clone()).downcast::<u8>().is_err());
        assert!(Prepared::new(large(&held)).downcast::<u8>().is_err());
        assert_eq!(Arc::strong_count(&held), 1, "dropped after a failed read");
        // Alignment above the inline space's goes to the heap and still reads back.
        #[repr(align(64))]
        struct Aligned(u8);
        let aligned = Prepared::new(Aligned(5));
        assert_eq!(aligned.downcast_ref::<Aligned>().unwrap().0, 5);
        assert_eq!(aligned.downcast::<Aligned>().unwrap().0, 5);
    }
}
