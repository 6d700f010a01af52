//! The books of the public code-mode benchmark (imran31415/codemode_python_benchmark,
//! `tools/accounting_tools.py`), written again as toolwright tools: three accounts
//! (checking 10,000, savings 50,000, business_credit 0), transactions, invoices, and its
//! eleven tools with their arguments and results. Dates are one fixed day instead of the
//! clock's, so every run is the same.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use serde::{Deserialize, Serialize};
use toolwright::{ToolError, ToolSchema, toolset};

/// The day every transaction and invoice is dated (the benchmark takes the clock's).
pub const TODAY: &str = "2026-12-01";

/// A transaction.
#[derive(Debug, Clone, Serialize, ToolSchema)]
pub struct Transaction {
    /// `TXN00001`, counting up.
    pub id: String,
    /// `YYYY-MM-DD`.
    pub date: String,
    /// `income`, `expense` or `transfer`.
    #[serde(rename = "type")]
    pub kind: String,
    /// The category, like `rent`.
    pub category: String,
    /// The amount, in dollars.
    pub amount: f64,
    /// What it was.
    pub description: String,
    /// The account it was booked on.
    pub account: String,
    /// Its tags.
    pub tags: Vec<String>,
}

/// One line of an invoice.
#[derive(Debug, Clone, Serialize, Deserialize, ToolSchema)]
pub struct Item {
    /// What was sold.
    pub description: String,
    /// How many (hours, units).
    pub quantity: f64,
    /// Price of one, in dollars.
    pub price: f64,
}

/// An invoice.
#[derive(Debug, Clone, Serialize, ToolSchema)]
pub struct Invoice {
    /// `INV00001`, counting up.
    pub id: String,
    /// The client.
    pub client_name: String,
    /// The total, in dollars.
    pub amount: f64,
    /// `YYYY-MM-DD`.
    pub issue_date: String,
    /// `YYYY-MM-DD`.
    pub due_date: String,
    /// `draft`, `sent`, `paid`, `overdue` or `cancelled`.
    pub status: String,
    /// The lines.
    pub items: Vec<Item>,
    /// Paid so far, in dollars.
    pub paid_amount: f64,
}

/// What `create_transaction` answers.
#[derive(Debug, Serialize, ToolSchema)]
pub struct Booked {
    /// The transaction.
    pub transaction: Transaction,
    /// The account's balance after it.
    pub new_balance: f64,
}

/// What `update_invoice_status` answers.
#[derive(Debug, Serialize, ToolSchema)]
pub struct StatusChanged {
    /// The invoice's status before.
    pub old_status: String,
    /// Its status now.
    pub new_status: String,
    /// The invoice.
    pub invoice: Invoice,
}

/// What `record_partial_payment` answers.
#[derive(Debug, Serialize, ToolSchema)]
pub struct Payment {
    /// This payment.
    pub payment_amount: f64,
    /// Paid in all.
    pub total_paid: f64,
    /// Still due.
    pub remaining: f64,
    /// The invoice.
    pub invoice: Invoice,
}

/// Transactions found.
#[derive(Debug, Serialize, ToolSchema)]
pub struct Transactions {
    /// How many.
    pub count: usize,
    /// The transactions, oldest first.
    pub transactions: Vec<Transaction>,
}

/// Invoices found.
#[derive(Debug, Serialize, ToolSchema)]
pub struct Invoices {
    /// How many.
    pub count: usize,
    /// The invoices, oldest first.
    pub invoices: Vec<Invoice>,
}

/// Income and expenses of a period.
#[derive(Debug, Serialize, ToolSchema)]
pub struct Totals {
    /// Income in all.
    pub total_income: f64,
    /// Expenses in all.
    pub total_expenses: f64,
    /// Income less expenses.
    pub net_income: f64,
    /// Income by category.
    pub income_by_category: BTreeMap<String, f64>,
    /// Expenses by category.
    pub expense_by_category: BTreeMap<String, f64>,
    /// Transactions in the period.
    pub transaction_count: usize,
}

/// What `get_financial_summary` answers.
#[derive(Debug, Serialize, ToolSchema)]
pub struct FinancialSummary {
    /// The period: `start_date` (or `beginning`) and `end_date` (or `now`).
    pub period: BTreeMap<String, String>,
    /// The period's totals.
    pub summary: Totals,
    /// Every account's balance.
    pub accounts: BTreeMap<String, f64>,
}

/// What `transfer_between_accounts` answers.
#[derive(Debug, Serialize, ToolSchema)]
pub struct Transfer {
    /// The amount moved.
    pub amount: f64,
    /// Both accounts' balances after it.
    pub new_balances: BTreeMap<String, f64>,
    /// The two transactions booked (out, then in).
    pub transaction_ids: Vec<String>,
}

/// An account.
#[derive(Debug, Clone, Serialize, ToolSchema)]
pub struct Account {
    /// Its balance, in dollars.
    pub balance: f64,
    /// `checking`, `savings` or `credit`.
    #[serde(rename = "type")]
    pub kind: String,
}

/// The whole state, as the benchmark's checks read it.
#[derive(Debug, Clone, Serialize, ToolSchema)]
pub struct StateSummary {
    /// Every account.
    pub accounts: BTreeMap<String, Account>,
    /// Transactions booked.
    pub total_transactions: usize,
    /// Income in all.
    pub total_income: f64,
    /// Expenses in all.
    pub total_expenses: f64,
    /// Income less expenses.
    pub net_income: f64,
    /// Invoices made.
    pub total_invoices: usize,
    /// Invoices by status.
    pub invoices_by_status: BTreeMap<String, usize>,
    /// What sent and overdue invoices still owe.
    pub outstanding_receivables: f64,
}

#[derive(Debug, Default)]
struct State {
    accounts: BTreeMap<String, Account>,
    transactions: Vec<Transaction>,
    invoices: Vec<Invoice>,
}

/// The books, and their tools.
#[derive(Debug)]
pub struct Books {
    state: Mutex<State>,
}

impl Books {
    /// New books: checking 10,000, savings 50,000, business_credit 0.
    pub fn new() -> Arc<Self> {
        let account = |balance: f64, kind: &str| Account {
            balance,
            kind: kind.to_owned(),
        };
        let accounts = BTreeMap::from([
            ("checking".to_owned(), account(10_000.0, "checking")),
            ("savings".to_owned(), account(50_000.0, "savings")),
            ("business_credit".to_owned(), account(0.0, "credit")),
        ]);
        Arc::new(Self {
            state: Mutex::new(State {
                accounts,
                ..State::default()
            }),
        })
    }

    fn state(&self) -> Result<std::sync::MutexGuard<'_, State>, ToolError> {
        self.state
            .lock()
            .map_err(|_| ToolError::internal("the books are poisoned"))
    }

    /// The state as the benchmark's checks read it.
    pub fn summary(&self) -> StateSummary {
        let state = self.state.lock().expect("the books");
        let total = |kind: &str| {
            (state.transactions.iter())
                .filter(|t| t.kind == kind)
                .map(|t| t.amount)
                .sum::<f64>()
        };
        let mut invoices_by_status = BTreeMap::new();
        for invoice in &state.invoices {
            *invoices_by_status
                .entry(invoice.status.clone())
                .or_insert(0) += 1;
        }
        StateSummary {
            accounts: state.accounts.clone(),
            total_transactions: state.transactions.len(),
            total_income: total("income"),
            total_expenses: total("expense"),
            net_income: total("income") - total("expense"),
            total_invoices: state.invoices.len(),
            invoices_by_status,
            outstanding_receivables: (state.invoices.iter())
                .filter(|i| i.status == "sent" || i.status == "overdue")
                .map(|i| i.amount - i.paid_amount)
                .sum(),
        }
    }
}

impl State {
    fn book(
        &mut self,
        kind: &str,
        category: &str,
        amount: f64,
        description: String,
        account: &str,
        tags: Vec<String>,
    ) -> Result<Booked, ToolError> {
        if !self.accounts.contains_key(account) {
            return Err(ToolError::not_found(format!("Unknown account: {account}")));
        }
        if amount <= 0.0 {
            return Err(ToolError::invalid_arguments(
                format!("Amount must be a positive number, got {amount}"),
                Vec::new(),
            ));
        }
        let transaction = Transaction {
            id: format!("TXN{:05}", self.transactions.len() + 1),
            date: TODAY.to_owned(),
            kind: kind.to_owned(),
            category: category.to_owned(),
            amount,
            description,
            account: account.to_owned(),
            tags,
        };
        let balance = &mut self.accounts.get_mut(account).expect("checked").balance;
        match kind {
            "income" => *balance += amount,
            "expense" => *balance -= amount,
            _ => {}
        }
        let new_balance = *balance;
        self.transactions.push(transaction.clone());
        Ok(Booked {
            transaction,
            new_balance,
        })
    }

    fn invoice(&mut self, invoice_id: &str) -> Result<&mut Invoice, ToolError> {
        (self.invoices.iter_mut())
            .find(|invoice| invoice.id == invoice_id)
            .ok_or_else(|| ToolError::not_found(format!("Invoice {invoice_id} not found")))
    }
}

/// The day `days` after `TODAY` (which is in December 2026).
fn due(days: u32) -> String {
    let mut day = 1 + days;
    let mut year = 2026;
    let mut month = 12;
    loop {
        let length = match month {
            2 if year % 4 == 0 => 29,
            2 => 28,
            4 | 6 | 9 | 11 => 30,
            _ => 31,
        };
        if day <= length {
            return format!("{year}-{month:02}-{day:02}");
        }
        day -= length;
        month += 1;
        if month > 12 {
            month = 1;
            year += 1;
        }
    }
}

#[toolset]
impl Books {
    /// Create a new financial transaction.
    ///
    /// # Arguments
    /// * `transaction_type` - Type of transaction: income, expense or transfer.
    /// * `category` - Transaction category (salary, rent, utilities, consulting, etc.).
    /// * `amount` - Transaction amount in dollars (positive number).
    /// * `description` - Description of the transaction.
    /// * `account` - Account name (checking, savings, business_credit); checking when omitted.
    /// * `date` - Transaction date (ISO format), today when omitted.
    /// * `tags` - Tags; none when omitted.
    #[tool(effect = "write", callers = "any")]
    // The benchmark's signature, argument for argument.
    #[allow(clippy::too_many_arguments)]
    pub fn create_transaction(
        &self,
        transaction_type: String,
        category: String,
        amount: f64,
        description: String,
        account: Option<String>,
        date: Option<String>,
        tags: Option<Vec<String>>,
    ) -> Result<Booked, ToolError> {
        let mut booked = self.state()?.book(
            &transaction_type,
            &category,
            amount,
            description,
            account.as_deref().unwrap_or("checking"),
            tags.unwrap_or_default(),
        )?;
        if let Some(date) = date {
            booked.transaction.date = date;
        }
        Ok(booked)
    }

    /// Create a new invoice, as a draft.
    ///
    /// # Arguments
    /// * `client_name` - Name of the client.
    /// * `items` - The lines, each with `description`, `quantity` and `price`.
    /// * `due_days` - Days until payment is due; 30 when omitted.
    #[tool(effect = "write", callers = "any")]
    pub fn create_invoice(
        &self,
        client_name: String,
        items: Vec<Item>,
        #[arg(minimum = 0, maximum = 3650)] due_days: Option<u32>,
    ) -> Result<Invoice, ToolError> {
        let mut state = self.state()?;
        let invoice = Invoice {
            id: format!("INV{:05}", state.invoices.len() + 1),
            client_name,
            amount: items.iter().map(|item| item.quantity * item.price).sum(),
            issue_date: TODAY.to_owned(),
            due_date: due(due_days.unwrap_or(30)),
            status: "draft".to_owned(),
            items,
            paid_amount: 0.0,
        };
        state.invoices.push(invoice.clone());
        Ok(invoice)
    }

    /// Update the status of an invoice; marking it paid books what was still due as income.
    ///
    /// # Arguments
    /// * `invoice_id` - The invoice's id, like `INV00001`.
    /// * `new_status` - New status: draft, sent, paid, overdue or cancelled.
    #[tool(effect = "write", callers = "any")]
    pub fn update_invoice_status(
        &self,
        invoice_id: String,
        new_status: String,
    ) -> Result<StatusChanged, ToolError> {
        let mut state = self.state()?;
        let invoice = state.invoice(&invoice_id)?;
        let old_status = std::mem::replace(&mut invoice.status, new_status.clone());
        let remaining = invoice.amount - invoice.paid_amount;
        let client = invoice.client_name.clone();
        if new_status == "paid" && old_status != "paid" && remaining > 0.0 {
            invoice.paid_amount = invoice.amount;
            state.book(
                "income",
                "invoice_payment",
                remaining,
                format!("Payment for invoice {invoice_id} from {client}"),
                "checking",
                vec![invoice_id.clone(), client],
            )?;
        }
        let invoice = state.invoice(&invoice_id)?.clone();
        Ok(StatusChanged {
            old_status,
            new_status,
            invoice,
        })
    }

    /// Record a partial payment for an invoice, booked as income; a payment that completes
    /// it marks it paid.
    ///
    /// # Arguments
    /// * `invoice_id` - The invoice's id, like `INV00001`.
    /// * `amount` - Payment amount in dollars.
    #[tool(effect = "write", callers = "any")]
    pub fn record_partial_payment(
        &self,
        invoice_id: String,
        amount: f64,
    ) -> Result<Payment, ToolError> {
        let mut state = self.state()?;
        let invoice = state.invoice(&invoice_id)?;
        if invoice.paid_amount + amount > invoice.amount {
            return Err(ToolError::conflict("Payment amount exceeds invoice total"));
        }
        invoice.paid_amount += amount;
        if invoice.paid_amount >= invoice.amount {
            invoice.status = "paid".to_owned();
        }
        let client = invoice.client_name.clone();
        state.book(
            "income",
            "invoice_payment",
            amount,
            format!("Partial payment for invoice {invoice_id} from {client}"),
            "checking",
            vec![invoice_id.clone(), client],
        )?;
        let invoice = state.invoice(&invoice_id)?.clone();
        Ok(Payment {
            payment_amount: amount,
            total_paid: invoice.paid_amount,
            remaining: invoice.amount - invoice.paid_amount,
            invoice,
        })
    }

    /// Query transactions with filters; every transaction when none is given.
    ///
    /// # Arguments
    /// * `account` - Only this account's.
    /// * `transaction_type` - Only this type (income, expense, transfer).
    /// * `category` - Only this category.
    /// * `start_date` - Only on or after this date (ISO format).
    /// * `end_date` - Only on or before this date (ISO format).
    /// * `tags` - Only those with any of these tags.
    #[tool(effect = "read_only")]
    pub fn get_transactions(
        &self,
        account: Option<String>,
        transaction_type: Option<String>,
        category: Option<String>,
        start_date: Option<String>,
        end_date: Option<String>,
        tags: Option<Vec<String>>,
    ) -> Result<Transactions, ToolError> {
        let state = self.state()?;
        let transactions: Vec<Transaction> = (state.transactions.iter())
            .filter(|t| account.as_ref().is_none_or(|a| &t.account == a))
            .filter(|t| transaction_type.as_ref().is_none_or(|k| &t.kind == k))
            .filter(|t| category.as_ref().is_none_or(|c| &t.category == c))
            .filter(|t| start_date.as_ref().is_none_or(|d| &t.date >= d))
            .filter(|t| end_date.as_ref().is_none_or(|d| &t.date <= d))
            .filter(|t| {
                tags.as_ref()
                    .is_none_or(|tags| tags.iter().any(|tag| t.tags.contains(tag)))
            })
            .cloned()
            .collect();
        Ok(Transactions {
            count: transactions.len(),
            transactions,
        })
    }

    /// Query invoices with filters; every invoice when none is given.
    ///
    /// # Arguments
    /// * `status` - Only this status.
    /// * `client_name` - Only clients whose name contains this (case-insensitive).
    #[tool(effect = "read_only")]
    pub fn get_invoices(
        &self,
        status: Option<String>,
        client_name: Option<String>,
    ) -> Result<Invoices, ToolError> {
        let state = self.state()?;
        let client = client_name.map(|name| name.to_lowercase());
        let invoices: Vec<Invoice> = (state.invoices.iter())
            .filter(|i| status.as_ref().is_none_or(|s| &i.status == s))
            .filter(|i| (client.as_ref()).is_none_or(|c| i.client_name.to_lowercase().contains(c)))
            .cloned()
            .collect();
        Ok(Invoices {
            count: invoices.len(),
            invoices,
        })
    }

    /// Get a financial summary (income and expenses by category, account balances) for a
    /// date range; all time when none is given.
    ///
    /// # Arguments
    /// * `start_date` - From this date (ISO format).
    /// * `end_date` - To this date (ISO format).
    #[tool(effect = "read_only")]
    pub fn get_financial_summary(
        &self,
        start_date: Option<String>,
        end_date: Option<String>,
    ) -> Result<FinancialSummary, ToolError> {
        let state = self.state()?;
        let mut income_by_category = BTreeMap::new();
        let mut expense_by_category = BTreeMap::new();
        let mut transaction_count = 0;
        for t in (state.transactions.iter())
            .filter(|t| start_date.as_ref().is_none_or(|d| &t.date >= d))
            .filter(|t| end_date.as_ref().is_none_or(|d| &t.date <= d))
        {
            transaction_count += 1;
            let bucket = match t.kind.as_str() {
                "income" => &mut income_by_category,
                "expense" => &mut expense_by_category,
                _ => continue,
            };
            *bucket.entry(t.category.clone()).or_insert(0.0) += t.amount;
        }
        let total_income: f64 = income_by_category.values().sum();
        let total_expenses: f64 = expense_by_category.values().sum();
        Ok(FinancialSummary {
            period: BTreeMap::from([
                (
                    "start_date".to_owned(),
                    start_date.unwrap_or_else(|| "beginning".to_owned()),
                ),
                (
                    "end_date".to_owned(),
                    end_date.unwrap_or_else(|| "now".to_owned()),
                ),
            ]),
            summary: Totals {
                total_income,
                total_expenses,
                net_income: total_income - total_expenses,
                income_by_category,
                expense_by_category,
                transaction_count,
            },
            accounts: (state.accounts.iter())
                .map(|(name, account)| (name.clone(), account.balance))
                .collect(),
        })
    }

    /// Transfer money between accounts (booked as two transfer transactions).
    ///
    /// # Arguments
    /// * `from_account` - Source account.
    /// * `to_account` - Destination account.
    /// * `amount` - Transfer amount in dollars.
    /// * `description` - Transfer description; empty when omitted.
    #[tool(effect = "write", callers = "any")]
    pub fn transfer_between_accounts(
        &self,
        from_account: String,
        to_account: String,
        amount: f64,
        description: Option<String>,
    ) -> Result<Transfer, ToolError> {
        let mut state = self.state()?;
        for account in [&from_account, &to_account] {
            if !state.accounts.contains_key(account) {
                return Err(ToolError::not_found(format!("Unknown account: {account}")));
            }
        }
        if state.accounts[&from_account].balance < amount {
            return Err(ToolError::conflict("Insufficient funds"));
        }
        let description = description.unwrap_or_default();
        let mut ids = Vec::new();
        for (account, category, other, sign, word) in [
            (&from_account, "transfer_out", &to_account, -1.0, "to"),
            (&to_account, "transfer_in", &from_account, 1.0, "from"),
        ] {
            let booked = state.book(
                "transfer",
                category,
                amount,
                format!("Transfer {word} {other}: {description}"),
                account,
                vec!["transfer".to_owned(), other.clone()],
            )?;
            state.accounts.get_mut(account).expect("checked").balance += sign * amount;
            ids.push(booked.transaction.id);
        }
        Ok(Transfer {
            amount,
            new_balances: [&from_account, &to_account]
                .into_iter()
                .map(|name| (name.clone(), state.accounts[name].balance))
                .collect(),
            transaction_ids: ids,
        })
    }

    /// Get the current balance of an account.
    ///
    /// # Arguments
    /// * `account` - Account name (checking, savings, business_credit).
    #[tool(effect = "read_only")]
    pub fn get_account_balance(&self, account: String) -> Result<Account, ToolError> {
        let state = self.state()?;
        state
            .accounts
            .get(&account)
            .cloned()
            .ok_or_else(|| ToolError::not_found(format!("Unknown account: {account}")))
    }

    /// Get a summary of the whole state: balances, transaction and invoice counts, income,
    /// expenses and outstanding receivables.
    #[tool(effect = "read_only")]
    pub fn get_state_summary(&self) -> StateSummary {
        self.summary()
    }
}
