//! The public accounting benchmark's tasks (examples/code_mode_accounting, whose token
//! figures `scripts/measure/code-mode-accounting` measures): each task done with direct
//! calls in batches, one call a turn, and one program ends with the same books, every
//! call succeeding; the books are the ones the tasks ask for.

#[path = "../examples/code_mode_accounting/books.rs"]
mod books;
#[path = "../examples/code_mode_accounting/tasks.rs"]
mod tasks;
#[path = "../examples/code_mode_accounting/ways.rs"]
mod ways;

use crate::support::block_on;
use serde_json::json;

#[test]
fn every_task_ends_with_the_same_books_all_three_ways() {
    // What each task's books hold at the end: transactions, income, expenses,
    // checking, outstanding receivables (worked out by hand from the task texts).
    let expected = [
        (1, 4, 0.0, 2825.0, 7175.0, 0.0),
        (2, 0, 0.0, 0.0, 10000.0, 13000.0),
        (3, 2, 13000.0, 0.0, 23000.0, 0.0),
        (4, 7, 7000.0, 1674.0, 15326.0, 0.0),
        (5, 6, 15000.0, 3500.0, 6500.0, 0.0),
        (6, 13, 41000.0, 10650.0, 40350.0, 0.0),
        (7, 3, 25000.0, 0.0, 35000.0, 7500.0),
        (8, 14, 0.0, 6355.0, 3645.0, 0.0),
    ];
    let tasks = tasks::tasks();
    assert_eq!(tasks.len(), expected.len());
    for (task, (id, transactions, income, expenses, checking, receivables)) in
        tasks.iter().zip(expected)
    {
        assert_eq!(task.id, id);
        let one_a_turn = task.one_a_turn();
        let question = format!("task {id}");
        let batched = block_on(ways::direct(&question, &task.turns));
        let sequential = block_on(ways::direct(&question, &one_a_turn));
        let program = block_on(ways::code(&question, task.program));
        assert_eq!(batched.books, sequential.books, "task {id}");
        assert_eq!(batched.books, program.books, "task {id}");
        let books = &program.books;
        assert_eq!(
            books["total_transactions"],
            json!(transactions),
            "task {id}: {books}"
        );
        assert_eq!(
            books["total_income"].as_f64(),
            Some(income),
            "task {id}: {books}"
        );
        assert_eq!(
            books["total_expenses"].as_f64(),
            Some(expenses),
            "task {id}: {books}"
        );
        assert_eq!(
            books["accounts"]["checking"]["balance"].as_f64(),
            Some(checking),
            "task {id}"
        );
        assert_eq!(
            books["outstanding_receivables"].as_f64(),
            Some(receivables),
            "task {id}"
        );
        // One program: two requests, whatever the number of calls.
        assert_eq!(program.requests.len(), 2, "task {id}");
        assert_eq!(
            program.turns.len(),
            2,
            "task {id}: the program, then the answer"
        );
        assert_eq!(program.turns[1], batched.turns[batched.turns.len() - 1]);
        assert_eq!(sequential.requests.len(), one_a_turn.len() + 1, "task {id}");
    }
}
