//! The scripted model's side of the benchmark's eight tasks, written for this example
//! (the task texts are the benchmark's, read at run time): for each, the tool calls a
//! model makes directly, turn by turn (the calls of one turn do not depend on each
//! other), and the one program it writes instead. Both make the same changes to the
//! books, so both end in the same state.

use serde_json::{Value, json};

/// One task: the direct calls, turn by turn, and the program.
pub struct Task {
    /// The benchmark's scenario id.
    pub id: u64,
    pub turns: Vec<Vec<(&'static str, Value)>>,
    pub program: &'static str,
}

impl Task {
    /// The same calls, one a turn (as the benchmark's Claude 3 Haiku runs made them).
    pub fn one_a_turn(&self) -> Vec<Vec<(&'static str, Value)>> {
        self.turns
            .iter()
            .flatten()
            .map(|call| vec![call.clone()])
            .collect()
    }
}

fn expense(category: &str, amount: f64, description: &str) -> (&'static str, Value) {
    (
        "create_transaction",
        json!({"transaction_type": "expense", "category": category, "amount": amount, "description": description}),
    )
}

fn income(category: &str, amount: f64, description: &str) -> (&'static str, Value) {
    (
        "create_transaction",
        json!({"transaction_type": "income", "category": category, "amount": amount, "description": description}),
    )
}

fn invoice(client: &str, items: &[(&str, f64, f64)], due_days: u32) -> (&'static str, Value) {
    let items: Vec<Value> = items
        .iter()
        .map(|(description, quantity, price)| {
            json!({"description": description, "quantity": quantity, "price": price})
        })
        .collect();
    (
        "create_invoice",
        json!({"client_name": client, "items": items, "due_days": due_days}),
    )
}

fn status(invoice: &str, status: &str) -> (&'static str, Value) {
    (
        "update_invoice_status",
        json!({"invoice_id": invoice, "new_status": status}),
    )
}

fn payment(invoice: &str, amount: f64) -> (&'static str, Value) {
    (
        "record_partial_payment",
        json!({"invoice_id": invoice, "amount": amount}),
    )
}

fn read(tool: &'static str, arguments: Value) -> (&'static str, Value) {
    (tool, arguments)
}

/// The eight tasks.
pub fn tasks() -> Vec<Task> {
    vec![
        Task {
            id: 1,
            turns: vec![
                vec![
                    expense("rent", 2500.0, "Monthly rent"),
                    expense("utilities", 150.0, "Electricity"),
                    expense("internet_phone", 100.0, "Internet and phone"),
                    expense("office_supplies", 75.0, "Office supplies"),
                ],
                vec![read("get_financial_summary", json!({}))],
            ],
            program: r#"for category, amount, description in [("rent", 2500, "Monthly rent"), ("utilities", 150, "Electricity"), ("internet_phone", 100, "Internet and phone"), ("office_supplies", 75, "Office supplies")]:
    await create_transaction(transaction_type="expense", category=category, amount=amount, description=description)
s = await get_financial_summary()
{"total_expenses": s["summary"]["total_expenses"], "by_category": s["summary"]["expense_by_category"], "checking": s["accounts"]["checking"]}"#,
        },
        Task {
            id: 2,
            turns: vec![
                vec![
                    invoice(
                        "TechStart Inc",
                        &[
                            ("Software Development", 80.0, 150.0),
                            ("Code Review", 10.0, 100.0),
                        ],
                        30,
                    ),
                    invoice(
                        "Design Studio",
                        &[("UI/UX Design", 40.0, 125.0), ("Prototyping", 15.0, 100.0)],
                        15,
                    ),
                ],
                vec![status("INV00001", "sent")],
                vec![
                    read("get_invoices", json!({})),
                    read("get_state_summary", json!({})),
                ],
            ],
            program: r#"tech = await create_invoice(client_name="TechStart Inc", items=[{"description": "Software Development", "quantity": 80, "price": 150}, {"description": "Code Review", "quantity": 10, "price": 100}], due_days=30)
await create_invoice(client_name="Design Studio", items=[{"description": "UI/UX Design", "quantity": 40, "price": 125}, {"description": "Prototyping", "quantity": 15, "price": 100}], due_days=15)
await update_invoice_status(invoice_id=tech["id"], new_status="sent")
invoices = (await get_invoices())["invoices"]
s = await get_state_summary()
{"invoices": [{"id": i["id"], "client": i["client_name"], "amount": i["amount"], "status": i["status"], "due": i["due_date"]} for i in invoices], "outstanding_receivables": s["outstanding_receivables"]}"#,
        },
        Task {
            id: 3,
            turns: vec![
                vec![invoice(
                    "Acme Corp",
                    &[
                        ("Consulting Services", 50.0, 200.0),
                        ("Project Management", 20.0, 150.0),
                    ],
                    30,
                )],
                vec![status("INV00001", "sent")],
                vec![payment("INV00001", 8000.0)],
                vec![payment("INV00001", 5000.0)],
                vec![
                    read("get_invoices", json!({"client_name": "Acme Corp"})),
                    read("get_account_balance", json!({"account": "checking"})),
                    read("get_transactions", json!({"category": "invoice_payment"})),
                ],
            ],
            program: r#"inv = await create_invoice(client_name="Acme Corp", items=[{"description": "Consulting Services", "quantity": 50, "price": 200}, {"description": "Project Management", "quantity": 20, "price": 150}])
await update_invoice_status(invoice_id=inv["id"], new_status="sent")
await record_partial_payment(invoice_id=inv["id"], amount=8000)
last = await record_partial_payment(invoice_id=inv["id"], amount=5000)
checking = await get_account_balance(account="checking")
paid = await get_transactions(category="invoice_payment")
{"invoice": {"id": inv["id"], "amount": last["invoice"]["amount"], "paid": last["total_paid"], "remaining": last["remaining"], "status": last["invoice"]["status"]}, "checking": checking["balance"], "income_from_invoices": sum(t["amount"] for t in paid["transactions"])}"#,
        },
        Task {
            id: 4,
            turns: vec![
                vec![
                    income("consulting", 5000.0, "Client payment"),
                    income("product_sales", 1500.0, "Product sale"),
                    income("referral_income", 500.0, "Referral bonus"),
                    expense("software", 299.0, "Software subscriptions"),
                    expense("marketing", 800.0, "Marketing ads"),
                    expense(
                        "professional_development",
                        450.0,
                        "Professional development",
                    ),
                    expense("meals", 125.0, "Business lunch"),
                ],
                vec![read("get_financial_summary", json!({}))],
            ],
            program: r#"for kind, category, amount, description in [("income", "consulting", 5000, "Client payment"), ("income", "product_sales", 1500, "Product sale"), ("income", "referral_income", 500, "Referral bonus"), ("expense", "software", 299, "Software subscriptions"), ("expense", "marketing", 800, "Marketing ads"), ("expense", "professional_development", 450, "Professional development"), ("expense", "meals", 125, "Business lunch")]:
    await create_transaction(transaction_type=kind, category=category, amount=amount, description=description)
s = await get_financial_summary()
{"income_by_category": s["summary"]["income_by_category"], "expense_by_category": s["summary"]["expense_by_category"], "net_income": s["summary"]["net_income"], "checking": s["accounts"]["checking"]}"#,
        },
        Task {
            id: 5,
            turns: vec![
                vec![income("contract_work", 15000.0, "Business income")],
                vec![(
                    "transfer_between_accounts",
                    json!({"from_account": "checking", "to_account": "savings", "amount": 20000.0, "description": "Emergency fund"}),
                )],
                vec![expense("equipment", 3500.0, "New laptop and monitors")],
                vec![(
                    "transfer_between_accounts",
                    json!({"from_account": "savings", "to_account": "checking", "amount": 5000.0, "description": "Cover upcoming expenses"}),
                )],
                vec![
                    read("get_state_summary", json!({})),
                    read("get_transactions", json!({"transaction_type": "transfer"})),
                ],
            ],
            program: r#"await create_transaction(transaction_type="income", category="contract_work", amount=15000, description="Business income")
await transfer_between_accounts(from_account="checking", to_account="savings", amount=20000, description="Emergency fund")
await create_transaction(transaction_type="expense", category="equipment", amount=3500, description="New laptop and monitors")
await transfer_between_accounts(from_account="savings", to_account="checking", amount=5000, description="Cover upcoming expenses")
s = await get_state_summary()
transfers = await get_transactions(transaction_type="transfer")
{"balances": {name: a["balance"] for name, a in s["accounts"].items()}, "transactions": s["total_transactions"], "transfers": [{"account": t["account"], "category": t["category"], "amount": t["amount"]} for t in transfers["transactions"]]}"#,
        },
        Task {
            id: 6,
            turns: vec![
                vec![
                    income("consulting", 12000.0, "Month 1 consulting"),
                    expense("rent", 2500.0, "Month 1 rent"),
                    expense("utilities", 200.0, "Month 1 utilities"),
                    expense("supplies", 300.0, "Month 1 supplies"),
                    invoice("BigCorp", &[("Consulting", 100.0, 150.0)], 30),
                    income("product_sales", 8000.0, "Month 2 product sales"),
                    expense("rent", 2500.0, "Month 2 rent"),
                    expense("marketing", 1200.0, "Month 2 marketing"),
                    expense("software", 400.0, "Month 2 software"),
                    income("consulting", 6000.0, "Month 3 consulting"),
                    expense("rent", 2500.0, "Month 3 rent"),
                    expense("utilities", 250.0, "Month 3 utilities"),
                    expense("travel", 800.0, "Month 3 travel"),
                ],
                vec![status("INV00001", "sent")],
                vec![status("INV00001", "paid")],
                vec![
                    read("get_financial_summary", json!({})),
                    read("get_state_summary", json!({})),
                ],
            ],
            program: r#"months = [
    [("income", "consulting", 12000), ("expense", "rent", 2500), ("expense", "utilities", 200), ("expense", "supplies", 300)],
    [("income", "product_sales", 8000), ("expense", "rent", 2500), ("expense", "marketing", 1200), ("expense", "software", 400)],
    [("income", "consulting", 6000), ("expense", "rent", 2500), ("expense", "utilities", 250), ("expense", "travel", 800)],
]
for n, month in enumerate(months):
    for kind, category, amount in month:
        await create_transaction(transaction_type=kind, category=category, amount=amount, description=f"Month {n + 1} {category}")
    if n == 0:
        inv = await create_invoice(client_name="BigCorp", items=[{"description": "Consulting", "quantity": 100, "price": 150}])
        await update_invoice_status(invoice_id=inv["id"], new_status="sent")
    if n == 1:
        await update_invoice_status(invoice_id=inv["id"], new_status="paid")
f = await get_financial_summary()
s = await get_state_summary()
{"income": f["summary"]["income_by_category"], "expenses": f["summary"]["expense_by_category"], "total_income": f["summary"]["total_income"], "total_expenses": f["summary"]["total_expenses"], "net_profit": f["summary"]["net_income"], "invoices": s["invoices_by_status"], "balances": f["accounts"], "receivables": s["outstanding_receivables"]}"#,
        },
        Task {
            id: 7,
            turns: vec![
                vec![
                    invoice("StartupX", &[("Development", 60.0, 175.0)], 30),
                    invoice("RetailCo", &[("Consulting", 40.0, 200.0)], 45),
                    invoice(
                        "TechGiant",
                        &[("Design", 80.0, 150.0), ("Testing", 20.0, 100.0)],
                        30,
                    ),
                ],
                vec![
                    status("INV00001", "sent"),
                    status("INV00002", "sent"),
                    status("INV00003", "sent"),
                ],
                vec![
                    payment("INV00001", 7000.0),
                    status("INV00002", "paid"),
                    payment("INV00003", 10000.0),
                ],
                vec![
                    read("get_invoices", json!({})),
                    read("get_state_summary", json!({})),
                ],
            ],
            program: r#"made = {}
for client, items, days in [("StartupX", [("Development", 60, 175)], 30), ("RetailCo", [("Consulting", 40, 200)], 45), ("TechGiant", [("Design", 80, 150), ("Testing", 20, 100)], 30)]:
    inv = await create_invoice(client_name=client, items=[{"description": d, "quantity": q, "price": p} for d, q, p in items], due_days=days)
    made[client] = inv["id"]
    await update_invoice_status(invoice_id=inv["id"], new_status="sent")
await record_partial_payment(invoice_id=made["StartupX"], amount=7000)
await update_invoice_status(invoice_id=made["RetailCo"], new_status="paid")
await record_partial_payment(invoice_id=made["TechGiant"], amount=10000)
invoices = (await get_invoices())["invoices"]
s = await get_state_summary()
{"invoices": [{"client": i["client_name"], "status": i["status"], "total": i["amount"], "paid": i["paid_amount"], "remaining": i["amount"] - i["paid_amount"]} for i in invoices], "receivables": s["outstanding_receivables"], "payments_received": s["total_income"], "follow_up": [i["client_name"] for i in invoices if i["amount"] > i["paid_amount"]]}"#,
        },
        Task {
            id: 8,
            turns: vec![
                vec![
                    expense("rent", 2500.0, "Rent"),
                    expense("utilities", 180.0, "Utilities"),
                    expense("internet", 100.0, "Internet"),
                    expense("office_supplies", 250.0, "Office supplies"),
                    expense("cleaning", 200.0, "Cleaning service"),
                    expense("marketing", 600.0, "Social media ads"),
                    expense("marketing", 800.0, "Content creation"),
                    expense("marketing", 150.0, "SEO tools"),
                    expense("software", 450.0, "Software licenses"),
                    expense("hosting", 300.0, "Cloud hosting"),
                    expense("domains", 50.0, "Domain renewals"),
                    expense("professional_development", 200.0, "Online courses"),
                    expense("professional_development", 500.0, "Conference ticket"),
                    expense("professional_development", 75.0, "Books"),
                ],
                vec![
                    read("get_transactions", json!({"transaction_type": "expense"})),
                    read("get_account_balance", json!({"account": "checking"})),
                ],
            ],
            program: r#"groups = {
    "Office": [("rent", 2500, "Rent"), ("utilities", 180, "Utilities"), ("internet", 100, "Internet"), ("office_supplies", 250, "Office supplies"), ("cleaning", 200, "Cleaning service")],
    "Marketing": [("marketing", 600, "Social media ads"), ("marketing", 800, "Content creation"), ("marketing", 150, "SEO tools")],
    "Operations": [("software", 450, "Software licenses"), ("hosting", 300, "Cloud hosting"), ("domains", 50, "Domain renewals")],
    "Professional Development": [("professional_development", 200, "Online courses"), ("professional_development", 500, "Conference ticket"), ("professional_development", 75, "Books")],
}
spent = []
for group, expenses in groups.items():
    for category, amount, description in expenses:
        await create_transaction(transaction_type="expense", category=category, amount=amount, description=description)
        spent.append((amount, description, group))
checking = await get_account_balance(account="checking")
{"by_group": {g: sum(a for a, _, h in spent if h == g) for g in groups}, "top_three": sorted(spent, reverse=True)[:3], "total": sum(a for a, _, _ in spent), "checking": checking["balance"]}"#,
        },
    ]
}
