//! A payments desk: look a customer up, refund a payment. The desk is a service holding
//! its ledger, and its tools are its methods (`#[toolset]`); the coding tools show the
//! other style, free functions taking state as `#[ctx]`. The refund acts on the outside
//! world (`external`): it needs the `payments:write` scope, refunds over 500.00 wait for
//! a person, and a retried refund pays once (idempotency key). Business rules are
//! checked after the schema: a well-formed id of a customer that does not exist is
//! `not_found`, not a crash.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use serde::{Deserialize, Serialize};
use toolwright::{Tool, ToolError, ToolSchema, Toolset, toolset};

/// A currency the desk can refund in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToolSchema)]
#[serde(rename_all = "UPPERCASE")]
pub enum Currency {
    Eur,
    Gbp,
    Usd,
}

/// A customer of the desk.
#[derive(Debug, Clone, Serialize, ToolSchema)]
pub struct Customer {
    /// The customer's id.
    pub id: String,
    /// Full name.
    pub name: String,
    /// Amount paid so far and not yet refunded, in cents.
    pub refundable: u64,
    /// The currency the customer pays in.
    pub currency: Currency,
}

/// What a refund returns.
#[derive(Debug, Serialize, ToolSchema)]
pub struct Receipt {
    /// The refund's id, for the customer's records.
    pub refund_id: String,
    /// Amount refunded, in the currency's minor unit.
    pub amount: u64,
    pub currency: Currency,
}

/// The desk's books: customers and the refunds made.
#[derive(Debug)]
pub struct Ledger {
    customers: Mutex<BTreeMap<String, Customer>>,
    refunds: Mutex<Vec<Receipt>>,
}

impl Default for Ledger {
    /// Two customers: C-100 (Ada, 1,200.00 EUR refundable) and C-200 (Grace, 80.00 USD).
    fn default() -> Self {
        let customers = [
            Customer {
                id: "C-100".into(),
                name: "Ada Lovelace".into(),
                refundable: 120_000,
                currency: Currency::Eur,
            },
            Customer {
                id: "C-200".into(),
                name: "Grace Hopper".into(),
                refundable: 8_000,
                currency: Currency::Usd,
            },
        ];
        Self {
            customers: Mutex::new(customers.into_iter().map(|c| (c.id.clone(), c)).collect()),
            refunds: Mutex::new(Vec::new()),
        }
    }
}

impl Ledger {
    /// How many refunds were made.
    pub fn refund_count(&self) -> usize {
        self.refunds
            .lock()
            .map(|refunds| refunds.len())
            .unwrap_or(0)
    }
}

/// The payments desk: the service whose methods are the payment tools.
#[derive(Debug, Default)]
pub struct PaymentsDesk {
    ledger: Ledger,
}

impl PaymentsDesk {
    /// A desk with the two example customers, shared as the tools hold it.
    pub fn shared() -> Arc<Self> {
        Arc::new(Self::default())
    }

    /// The desk's books.
    pub fn ledger(&self) -> &Ledger {
        &self.ledger
    }

    /// One of the desk's tools, by name (for a test that looks at one tool alone).
    pub fn tool(self: &Arc<Self>, name: &str) -> Arc<dyn Tool> {
        self.clone()
            .tools()
            .into_iter()
            .find(|tool| tool.spec().name == name)
            .unwrap_or_else(|| panic!("the desk has no tool {name}"))
    }
}

/// Refunds over this many cents wait for a person's approval.
pub const APPROVAL_THRESHOLD: u64 = 50_000;

/// Why a refund needs a person: it is over 500.00.
pub fn refund_needs_approval(
    customer: &str,
    amount: &u64,
    _currency: &Currency,
    _memo: &Option<String>,
    _retries: &u8,
) -> Option<String> {
    (*amount > APPROVAL_THRESHOLD).then(|| {
        format!(
            "a refund of {}.{:02} to {customer} is over the 500.00 limit",
            amount / 100,
            amount % 100
        )
    })
}

#[toolset]
impl PaymentsDesk {
    /// Look a customer up by id.
    ///
    /// Use it before a refund, to check the customer and the currency they pay in.
    ///
    /// # Arguments
    /// * `id` - The customer's id, like `C-100`, as the user or a receipt gives it.
    #[tool(effect = "read_only")]
    pub fn lookup_customer(
        &self,
        #[arg(pattern = "^C-[0-9]+$")] id: String,
    ) -> Result<Customer, ToolError> {
        let customers = self
            .ledger
            .customers
            .lock()
            .map_err(|_| ToolError::internal("the ledger is poisoned"))?;
        customers.get(&id).cloned().ok_or_else(|| {
            ToolError::not_found(format!("no customer {id}"))
                .with_hint("check the id with the user")
        })
    }

    /// Refund a payment to a customer.
    ///
    /// Use only after the customer's request was confirmed.
    ///
    /// # Arguments
    /// * `customer` - Customer id, like `C-100`.
    /// * `amount` - Amount in the currency's minor unit (cents).
    ///
    /// # Errors
    /// `not_found` when the customer does not exist, `conflict` when the amount is more than
    /// was paid or the currency is not the customer's.
    #[tool(
        effect = "external",
        idempotent,
        scopes = ["payments:write"],
        approval = refund_needs_approval,
        example = r#"{"customer": "C-100", "amount": 2500, "currency": "EUR"}"#,
        example = r#"{"customer": "C-200", "amount": 800, "currency": "USD", "memo": "Damaged on arrival"}"#
    )]
    pub fn refund_payment(
        &self,
        #[arg(pattern = "^C-[0-9]+$")] customer: String,
        #[arg(minimum = 1)] amount: u64,
        /// Currency of the refund.
        currency: Currency,
        /// Shown on the customer's statement; none when omitted.
        #[arg(max_length = 140)]
        memo: Option<String>,
        /// How many times to retry a refund the bank declines.
        #[arg(default = 3)]
        retries: u8,
    ) -> Result<Receipt, ToolError> {
        let _ = (memo, retries);
        let mut customers = self
            .ledger
            .customers
            .lock()
            .map_err(|_| ToolError::internal("the ledger is poisoned"))?;
        let record = customers.get_mut(&customer).ok_or_else(|| {
            ToolError::not_found(format!("no customer {customer}"))
                .with_hint("look the customer up first")
        })?;
        if record.currency != currency {
            return Err(ToolError::conflict(format!(
                "{customer} pays in {:?}, not {currency:?}",
                record.currency
            ))
            .with_hint("refund in the customer's currency"));
        }
        if amount > record.refundable {
            return Err(ToolError::conflict(format!(
                "{customer} has {} cents refundable; {amount} is more",
                record.refundable
            ))
            .with_hint("refund at most what was paid"));
        }
        record.refundable -= amount;
        let mut refunds = self
            .ledger
            .refunds
            .lock()
            .map_err(|_| ToolError::internal("the ledger is poisoned"))?;
        let receipt = Receipt {
            refund_id: format!("R-{}", refunds.len() + 1),
            amount,
            currency,
        };
        refunds.push(Receipt {
            refund_id: receipt.refund_id.clone(),
            amount,
            currency,
        });
        Ok(receipt)
    }
}
