//! `Tool::prepare` and `Tool::run`: read the arguments into a generated struct (serde,
//! then the declared constraints on the typed values; the schema validator reports the
//! problems when either fails), take the `#[ctx]` values from the context, call the
//! function, convert what it returns.

use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};
use syn::Type;
use syn::spanned::Spanned;

use crate::ast::{Output, Receiver, ToolFn};
use crate::codegen::{SchemaSource, checked_type, constraint_check};
use crate::expand::schema::default_fn_name;

/// Items beside the `Tool` impl (the arguments struct and its check), the impl's
/// methods, and the `CallHooks` methods of a tool that declares any.
pub struct Dispatch {
    pub items: TokenStream,
    pub methods: TokenStream,
    pub hooks: Vec<TokenStream>,
}

pub fn expand_dispatch(tool: &ToolFn<'_>) -> Dispatch {
    let tool_name = &tool.name;
    let function = &tool.item.sig.ident;
    let locals: Vec<_> = (0..tool.params.len())
        .map(|i| format_ident!("__tw_{}", i))
        .collect();

    let mut fields = Vec::new();
    let mut reader = Reader::default();
    let mut field_names = Vec::new();
    let mut checks = Vec::new();
    let mut context_lets = Vec::new();
    let mut context_types = Vec::new();
    // How `run` gives up: a synchronous tool returns a ready future, an async one's
    // future returns the error. (No `?` in a closure: a closure is one more function in
    // the user's crate for every tool.)
    let fail = if tool.is_async() {
        quote!(return ::core::result::Result::Err(__tw_error))
    } else {
        quote!(return _tw::ToolFuture::ready(::core::result::Result::Err(__tw_error)))
    };
    for (param, local) in tool.params.iter().zip(&locals) {
        let ty = param.ty;
        if param.ctx.is_some() {
            let (inner, by_ref) = match ty {
                Type::Reference(reference) => (&*reference.elem, true),
                other => (other, false),
            };
            let take = if by_ref { quote!() } else { quote!(.clone()) };
            context_lets.push(quote_spanned! {ty.span()=>
                let #local = match _tw::__private::context::<#inner>(__tw_ctx, #tool_name) {
                    ::core::result::Result::Ok(__tw_value) => __tw_value,
                    ::core::result::Result::Err(__tw_error) => #fail,
                } #take;
            });
            context_types.push(quote!(_tw::ContextType::of::<#inner>()));
            continue;
        }
        reader.field(param, local);
        fields.push(quote!(#local: #ty));
        checks.push(constraint_check(&param.options, &quote!(&__tw_args.#local)));
        field_names.push(local);
    }

    // A toolset's method is called on the service the companion holds.
    let (callee, receiver) = match &tool.method {
        None => (quote!(#function), None),
        Some(method) => {
            let self_ty = method.self_ty;
            let receiver = match method.receiver {
                Receiver::None => None,
                Receiver::Ref => Some(quote!(&*self.0,)),
                Receiver::Arc => Some(quote!(::std::sync::Arc::clone(&self.0),)),
            };
            (quote!(<#self_ty>::#function), receiver)
        }
    };
    let call = if tool.is_async() {
        quote!(#callee(#receiver #(#locals),*).await)
    } else {
        quote!(#callee(#receiver #(#locals),*))
    };
    let convert = convert_output(&tool.output);
    let context_types = (!context_types.is_empty()).then(|| {
        quote! {
            fn context_types(&self) -> ::std::vec::Vec<_tw::ContextType> {
                ::std::vec![#(#context_types),*]
            }
        }
    });
    let hooks = expand_hooks(tool, &field_names);
    let checks = if checks.is_empty() {
        quote!(true)
    } else {
        quote!(#(#checks)&&*)
    };

    let body = |finish: TokenStream| {
        quote! {
            let __TwArgs { #(#field_names),* } = match __tw_prepared.downcast::<__TwArgs>() {
                ::core::result::Result::Ok(__tw_value) => __tw_value,
                ::core::result::Result::Err(__tw_error) => #fail,
            };
            #(#context_lets)*
            let __tw_ret = #call;
            #finish
        }
    };
    // A synchronous function runs now and its future is ready (nothing boxed); an async
    // one runs when the boxed future is polled.
    let run = if tool.is_async() {
        let body = body(quote!(#convert));
        quote!(_tw::ToolFuture::new(async move { #body }))
    } else {
        body(quote!(_tw::ToolFuture::ready({ #convert })))
    };

    let deserialize = reader.expand();
    let items = quote! {
        struct __TwArgs {
            #(#fields,)*
        }

        #deserialize

        fn __tw_check(__tw_args: &__TwArgs) -> bool {
            #checks
        }

        static __TW_VALIDATOR: ::std::sync::OnceLock<_tw::__private::Validator> = ::std::sync::OnceLock::new();
    };
    let methods = quote! {
        #context_types

        fn prepare(
            &self,
            __tw_arguments: _tw::Arguments<'_>,
        ) -> ::core::result::Result<_tw::Prepared, _tw::ToolError> {
            _tw::__private::prepare::<__TwArgs>(
                _tw::__private::spec_once(&__TW_SPEC, __tw_spec),
                &__TW_VALIDATOR,
                __tw_arguments,
                __tw_check,
            )
        }

        fn run<'a>(&'a self, __tw_ctx: &'a _tw::Context, __tw_prepared: _tw::Prepared) -> _tw::ToolFuture<'a> {
            #run
        }
    };
    Dispatch {
        items,
        methods,
        hooks,
    }
}

/// The arguments struct's `Deserialize`, written out rather than derived: a loop over
/// the object's keys, each read as a parameter index by one seed shared by every tool
/// (`FieldIndex`), and a `match`. serde's derive would add a field visitor and its
/// helpers per tool; this keeps what each tool adds to a user's build small. Same reading
/// as the derive with `deny_unknown_fields`: unknown and repeated names refused, an absent
/// `Option` is `None`, `#[arg(default)]`, `#[serde(with | deserialize_with | alias)]`.
#[derive(Default)]
struct Reader {
    /// `(name, index)` for every accepted name.
    names: Vec<TokenStream>,
    wire: Vec<String>,
    slots: Vec<TokenStream>,
    arms: Vec<TokenStream>,
    fills: Vec<TokenStream>,
    inits: Vec<TokenStream>,
    seeds: Vec<TokenStream>,
}

impl Reader {
    fn field(&mut self, param: &crate::ast::Param<'_>, local: &syn::Ident) {
        let index = self.wire.len();
        let ty = param.ty;
        let wire = &param.wire_name;
        self.wire.push(wire.clone());
        self.names.push(quote!((#wire, #index)));
        for alias in &param.serde.aliases {
            self.names.push(quote!((#alias, #index)));
        }
        let slot = slot_type(param);
        self.slots.push(quote! {
            let mut #local: ::core::option::Option<#slot> = ::core::option::Option::None;
        });
        let read = match &param.serde.deserialize_with {
            Some(path) => {
                let seed = format_ident!("__TwWith{}", index);
                self.seeds.push(quote_spanned! {path.span()=>
                    struct #seed;
                    impl<'de> _tw::__private::serde::de::DeserializeSeed<'de> for #seed {
                        type Value = #ty;
                        fn deserialize<__D: _tw::__private::serde::Deserializer<'de>>(
                            self,
                            __d: __D,
                        ) -> ::core::result::Result<#ty, __D::Error> {
                            #path(__d)
                        }
                    }
                });
                quote!(_tw::__private::read_arg_with(&mut __tw_map, &mut #local, #wire, #seed))
            }
            None => quote!(_tw::__private::read_arg(&mut __tw_map, &mut #local, #wire)),
        };
        self.arms.push(quote!(#index => #read,));
        // Every slot is filled before the struct is built: an argument not sent takes
        // its default, or what its type reads an absence as (`None`), or is refused.
        let fill = match (&param.options.default, &param.serde.deserialize_with) {
            (Some(_), _) => {
                let default_fn = default_fn_name(param);
                quote!(_tw::__private::fill_default(&mut #local, #default_fn))
            }
            // serde's derive: a value read by a function of its own must be sent.
            (None, Some(_)) => quote!(_tw::__private::require(&#local, #wire)),
            (None, None) => quote!(_tw::__private::fill_absent(&mut #local, #wire)),
        };
        self.fills.push(fill);
        self.inits
            .push(quote!(#local: _tw::__private::filled(#local)));
    }

    fn expand(self) -> TokenStream {
        let Reader {
            names,
            wire,
            slots,
            arms,
            fills,
            inits,
            seeds,
        } = self;
        quote! {
            #(#seeds)*

            impl<'de> _tw::__private::serde::Deserialize<'de> for __TwArgs {
                fn deserialize<__D: _tw::__private::serde::Deserializer<'de>>(
                    __d: __D,
                ) -> ::core::result::Result<Self, __D::Error> {
                    __d.deserialize_map(__TwArgsVisitor)
                }
            }

            struct __TwArgsVisitor;

            impl<'de> _tw::__private::serde::de::Visitor<'de> for __TwArgsVisitor {
                type Value = __TwArgs;

                fn expecting(&self, __f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                    __f.write_str("an object of the tool's arguments")
                }

                fn visit_map<__A: _tw::__private::serde::de::MapAccess<'de>>(
                    self,
                    mut __tw_map: __A,
                ) -> ::core::result::Result<__TwArgs, __A::Error> {
                    static __TW_FIELDS: _tw::__private::FieldIndex = _tw::__private::FieldIndex {
                        names: &[#(#names),*],
                        wire: &[#(#wire),*],
                    };
                    #(#slots)*
                    // One way out on an error (the slots are dropped in one place), and
                    // no `?`: each is a branch and two calls in a debug build.
                    let __tw_failed = 'read: {
                        loop {
                            let __tw_index = match _tw::__private::serde::de::MapAccess::next_key_seed(
                                &mut __tw_map,
                                &__TW_FIELDS,
                            ) {
                                ::core::result::Result::Ok(::core::option::Option::Some(__tw_index)) => __tw_index,
                                ::core::result::Result::Ok(::core::option::Option::None) => break,
                                ::core::result::Result::Err(__tw_error) => break 'read ::core::option::Option::Some(__tw_error),
                            };
                            let __tw_read = match __tw_index {
                                #(#arms)*
                                _ => _tw::__private::skip_value(&mut __tw_map),
                            };
                            if let ::core::result::Result::Err(__tw_error) = __tw_read {
                                break 'read ::core::option::Option::Some(__tw_error);
                            }
                        }
                        #(
                            if let ::core::result::Result::Err(__tw_error) = #fills {
                                break 'read ::core::option::Option::Some(__tw_error);
                            }
                        )*
                        ::core::option::Option::None
                    };
                    if let ::core::option::Option::Some(__tw_error) = __tw_failed {
                        return ::core::result::Result::Err(__tw_error);
                    }
                    ::core::result::Result::Ok(__TwArgs { #(#inits,)* })
                }
            }
        }
    }
}

/// How the reader names an argument's type: through its schema when the schema is the
/// type's own (`codegen::checked_type`).
fn slot_type(param: &crate::ast::Param<'_>) -> TokenStream {
    let ty = param.ty;
    if SchemaSource::given(&param.options, ty).is_none() && param.serde.deserialize_with.is_none() {
        checked_type(ty)
    } else {
        quote!(#ty)
    }
}

/// The function's return value as `Result<ToolOutput, ToolError>`.
fn convert_output(output: &Output<'_>) -> TokenStream {
    match output {
        Output::Unit => quote! {
            let () = __tw_ret;
            ::core::result::Result::Ok(_tw::ToolOutput::Empty)
        },
        Output::Value(ty) => quote_spanned! {ty.span()=>
            _tw::__private::output(__tw_ret)
        },
        Output::Result { ok, span } => {
            let output = quote_spanned!(ok.span()=> _tw::__private::output(__tw_value));
            let error = quote_spanned!(*span=> (&__tw_error).__tw_error_kind().convert(__tw_error));
            quote! {
                match __tw_ret {
                    ::core::result::Result::Ok(__tw_value) => #output,
                    ::core::result::Result::Err(__tw_error) => {
                        #[allow(unused_imports)]
                        use _tw::__private::{ViaDisplay as _, ViaToolError as _};
                        ::core::result::Result::Err(#error)
                    }
                }
            }
        }
    }
}

/// The per-call hooks a tool opts into: `classify`, `approval`, `describe` (functions
/// that take the tool's arguments by reference, in order) and `#[arg(resource)]`.
fn expand_hooks(tool: &ToolFn<'_>, fields: &[&proc_macro2::Ident]) -> Vec<TokenStream> {
    let by_ref = quote!(#(&__tw_args.#fields),*);
    let read = quote! {
        let ::core::option::Option::Some(__tw_args) = __tw_prepared.downcast_ref::<__TwArgs>() else {
            return ::core::default::Default::default();
        };
    };
    let mut hooks = Vec::new();
    if let Some(classify) = &tool.options.classify {
        hooks.push(quote_spanned! {classify.span()=>
            fn effect_of(&self, __tw_prepared: &_tw::Prepared) -> ::core::option::Option<_tw::Effect> {
                #read
                let __tw_effect: _tw::Effect = #classify(#by_ref);
                ::core::option::Option::Some(__tw_effect)
            }
        });
    }
    if let Some(approval) = &tool.options.approval {
        hooks.push(quote_spanned! {approval.span()=>
            fn approval_reason(&self, __tw_prepared: &_tw::Prepared) -> ::core::option::Option<::std::string::String> {
                #read
                let __tw_reason: ::core::option::Option<::std::string::String> = #approval(#by_ref);
                __tw_reason
            }
        });
    }
    if let Some(describe) = &tool.options.describe {
        hooks.push(quote_spanned! {describe.span()=>
            fn describe_call(&self, __tw_prepared: &_tw::Prepared) -> ::core::option::Option<::std::string::String> {
                #read
                let __tw_text: ::std::string::String = #describe(#by_ref);
                ::core::option::Option::Some(__tw_text)
            }
        });
    }
    if let Some(reconcile) = &tool.options.reconcile {
        hooks.push(quote_spanned! {reconcile.span()=>
            fn reconcile<'a>(&'a self, __tw_ctx: &'a _tw::Context, _: _tw::CallInfo<'a>, __tw_prepared: &'a _tw::Prepared) -> ::core::option::Option<_tw::ReconcileFuture<'a>> {
                #read
                ::core::option::Option::Some(::std::boxed::Box::pin(#reconcile(__tw_ctx, #by_ref)))
            }
        });
    }
    let resource = tool
        .args()
        .zip(fields)
        .find(|(param, _)| param.options.resource.as_ref().is_some_and(|r| **r));
    if let Some((_, field)) = resource {
        hooks.push(quote! {
            fn resource_key(&self, __tw_prepared: &_tw::Prepared) -> ::core::option::Option<::std::string::String> {
                #read
                _tw::__private::serde_json::to_string(&__tw_args.#field).ok()
            }
        });
    }
    hooks
}
