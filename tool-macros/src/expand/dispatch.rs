//! `Tool::prepare` and `Tool::run`: read the arguments into a generated struct (serde,
//! then the declared constraints on the typed values; the schema validator reports the
//! problems when either fails), take the `#[ctx]` values from the context, call the
//! function, convert what it returns.

use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};
use syn::Type;
use syn::spanned::Spanned;

use crate::ast::{Output, ToolFn};
use crate::expand::schema::{constraint_check, default_fn_name};

/// Items beside the `Tool` impl (the arguments struct and its check), and the impl's
/// methods.
pub struct Dispatch {
    pub items: TokenStream,
    pub methods: TokenStream,
}

pub fn expand_dispatch(tool: &ToolFn<'_>) -> Dispatch {
    let tool_name = &tool.name;
    let function = &tool.item.sig.ident;
    let locals: Vec<_> = (0..tool.params.len())
        .map(|i| format_ident!("__tw_{}", i))
        .collect();

    let mut fields = Vec::new();
    let mut field_names = Vec::new();
    let mut checks = Vec::new();
    let mut context_lets = Vec::new();
    let mut context_types = Vec::new();
    for (param, local) in tool.params.iter().zip(&locals) {
        let ty = param.ty;
        if param.ctx.is_some() {
            let (inner, by_ref) = match ty {
                Type::Reference(reference) => (&*reference.elem, true),
                other => (other, false),
            };
            let take = if by_ref { quote!() } else { quote!(.clone()) };
            context_lets.push(quote_spanned! {ty.span()=>
                let #local = _tw::__private::context::<#inner>(__tw_ctx, #tool_name)? #take;
            });
            context_types.push(quote!(_tw::ContextType::of::<#inner>()));
            continue;
        }
        let wire = &param.wire_name;
        let default = param.options.default.as_ref().map(|_| {
            let path = default_fn_name(param).to_string();
            quote!(#[serde(default = #path)])
        });
        let serde = &param.serde;
        fields.push(quote! {
            #[serde(rename = #wire)]
            #default
            #(#serde)*
            #local: #ty
        });
        checks.push(constraint_check(&param.options, &quote!(&__tw_args.#local)));
        field_names.push(local);
    }

    let call = if tool.is_async() {
        quote!(#function(#(#locals),*).await)
    } else {
        quote!(#function(#(#locals),*))
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

    let body = quote! {
        let __TwArgs { #(#field_names),* } = __tw_prepared.downcast::<__TwArgs>()?;
        #(#context_lets)*
        let __tw_ret = #call;
        #convert
    };
    // A synchronous function runs now and its future is ready (nothing boxed); an async
    // one runs when the boxed future is polled.
    let run = if tool.is_async() {
        quote!(_tw::ToolFuture::new(async move { #body }))
    } else {
        quote!(_tw::ToolFuture::ready((move || -> _tw::ToolOutcome { #body })()))
    };

    let items = quote! {
        #[derive(_tw::__private::serde::Deserialize)]
        #[serde(crate = "_tw::__private::serde", deny_unknown_fields)]
        struct __TwArgs {
            #(#fields,)*
        }

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
                _tw::Tool::spec(self),
                &__TW_VALIDATOR,
                __tw_arguments,
                __tw_check,
            )
        }

        fn run<'a>(&'a self, __tw_ctx: &'a _tw::Context, __tw_prepared: _tw::Prepared) -> _tw::ToolFuture<'a> {
            #run
        }
    };
    let methods = quote! {
        #methods
        #(#hooks)*
    };
    Dispatch { items, methods }
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
            fn effect_of(&self, __tw_prepared: &_tw::Prepared) -> _tw::Effect {
                let ::core::option::Option::Some(__tw_args) = __tw_prepared.downcast_ref::<__TwArgs>() else {
                    return _tw::Effect::RISKIEST;
                };
                let __tw_effect: _tw::Effect = #classify(#by_ref);
                __tw_effect
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
