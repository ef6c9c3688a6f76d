//! A priority a user writes: arithmetic over a waiting job's attributes and the current time,
//! the fourth kind of queue order (docs/policies.md, "A priority you write"). Higher runs
//! first, as with the built-in orders.
//!
//! Parsed with the grammar `priority.pest` and a Pratt parser (`+ -` < `* /` < unary `-` <
//! `^`, which is right-associative), then compiled to a postfix program evaluated on a stack:
//! no loops, no recursion when evaluating, no allocation beyond the stack sized at parse time.
//! Bounds: at most [`MAX_CHARS`] characters and [`MAX_DEPTH`] nested parentheses or calls
//! (checked before parsing, so the parser's recursion is bounded too). Every error names its
//! column (1 = the first character).

use std::fmt;

use pest::iterators::Pairs;
use pest::pratt_parser::{Assoc, Op as PrattOp, PrattParser};
use pest::Parser;

/// Longest expression, in characters.
pub const MAX_CHARS: usize = 400;
/// Deepest nesting of parentheses and calls.
pub const MAX_DEPTH: usize = 16;

#[derive(pest_derive::Parser)]
#[grammar = "policy/order/priority.pest"]
struct PriorityGrammar;

/// What an expression may read of a waiting job and of the machine's clock.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Attribute {
    /// Seconds the job has waited: now − submit.
    Wait,
    /// Submit time, seconds.
    Submit,
    /// The run-time estimate the policy uses (the estimates axis), seconds.
    Estimate,
    /// The user's requested time, seconds.
    Request,
    /// Processors.
    Procs,
    /// Processors × estimate.
    Area,
    /// The user's number (SWF field 12; −1 when unknown).
    User,
    /// The queue's number (SWF field 15; −1 when unknown).
    Queue,
    /// The current time, seconds.
    Now,
}

impl Attribute {
    /// Every attribute with its name and meaning, in the order the docs list them.
    pub const ALL: [(Attribute, &'static str, &'static str); 9] = [
        (Attribute::Wait, "wait", "seconds waited (now − submit)"),
        (Attribute::Submit, "submit", "submit time (s)"),
        (
            Attribute::Estimate,
            "estimate",
            "run-time estimate the policy uses (s)",
        ),
        (
            Attribute::Request,
            "request",
            "the user's requested time (s)",
        ),
        (Attribute::Procs, "procs", "processors"),
        (Attribute::Area, "area", "procs × estimate"),
        (Attribute::User, "user", "user number (−1: unknown)"),
        (Attribute::Queue, "queue", "queue number (−1: unknown)"),
        (Attribute::Now, "now", "current time (s)"),
    ];

    fn lookup(name: &str) -> Option<Attribute> {
        Attribute::ALL
            .iter()
            .find(|(_, n, _)| *n == name)
            .map(|(a, _, _)| *a)
    }

    fn names() -> String {
        Attribute::ALL
            .iter()
            .map(|(_, n, _)| *n)
            .collect::<Vec<_>>()
            .join(", ")
    }
}

/// The values of the attributes for one job at one instant.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Attributes {
    pub wait: f64,
    pub submit: f64,
    pub estimate: f64,
    pub request: f64,
    pub procs: f64,
    pub user: f64,
    pub queue: f64,
    pub now: f64,
}

impl Attributes {
    fn get(&self, a: Attribute) -> f64 {
        match a {
            Attribute::Wait => self.wait,
            Attribute::Submit => self.submit,
            Attribute::Estimate => self.estimate,
            Attribute::Request => self.request,
            Attribute::Procs => self.procs,
            Attribute::Area => self.procs * self.estimate,
            Attribute::User => self.user,
            Attribute::Queue => self.queue,
            Attribute::Now => self.now,
        }
    }
}

/// The functions an expression may call.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Function {
    Ln,
    Log2,
    Log10,
    Sqrt,
    Exp,
    Abs,
    Min,
    Max,
    Pow,
}

/// Name, function, fewest and most arguments.
const FUNCTIONS: [(&str, Function, usize, usize); 9] = [
    ("log", Function::Ln, 1, 1),
    ("log2", Function::Log2, 1, 1),
    ("log10", Function::Log10, 1, 1),
    ("sqrt", Function::Sqrt, 1, 1),
    ("exp", Function::Exp, 1, 1),
    ("abs", Function::Abs, 1, 1),
    ("min", Function::Min, 2, 8),
    ("max", Function::Max, 2, 8),
    ("pow", Function::Pow, 2, 2),
];

/// One step of the postfix program.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Step {
    Number(f64),
    Read(Attribute),
    Neg,
    Add,
    Sub,
    Mul,
    Div,
    Pow,
    Call(Function, usize),
}

/// Why an expression was refused: where (column, 1-based, in characters) and what.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExpressionError {
    pub column: usize,
    pub message: String,
}

impl fmt::Display for ExpressionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "column {}: {}", self.column, self.message)
    }
}

impl std::error::Error for ExpressionError {}

impl ExpressionError {
    fn at(column: usize, message: impl Into<String>) -> Self {
        ExpressionError {
            column,
            message: message.into(),
        }
    }

    /// The expression with a caret under the column, for a terminal.
    pub fn pointer(&self, text: &str) -> String {
        let line: String = text
            .chars()
            .map(|c| if c.is_whitespace() { ' ' } else { c })
            .collect();
        format!("{line}\n{}^", " ".repeat(self.column.saturating_sub(1)))
    }
}

/// A parsed priority expression.
#[derive(Clone, Debug, PartialEq)]
pub struct PriorityExpression {
    text: String,
    program: Vec<Step>,
    /// Deepest stack the program needs.
    depth: usize,
}

/// The column (1-based, in characters) of byte `offset` of `text`.
fn column_of(text: &str, offset: usize) -> usize {
    text.get(..offset).map_or(offset, |s| s.chars().count()) + 1
}

/// Refuses expressions too long, empty or nested too deep — before the parser recurses.
fn check_bounds(text: &str) -> Result<(), ExpressionError> {
    let chars = text.chars().count();
    if chars > MAX_CHARS {
        return Err(ExpressionError::at(
            MAX_CHARS + 1,
            format!("the expression is {chars} characters long; at most {MAX_CHARS}"),
        ));
    }
    if text.trim().is_empty() {
        return Err(ExpressionError::at(
            1,
            format!(
                "the expression is empty; write a priority over {}",
                Attribute::names()
            ),
        ));
    }
    let mut depth = 0usize;
    for (i, c) in text.chars().enumerate() {
        match c {
            '(' => {
                depth += 1;
                if depth > MAX_DEPTH {
                    return Err(ExpressionError::at(
                        i + 1,
                        format!("parentheses nested more than {MAX_DEPTH} deep"),
                    ));
                }
            }
            ')' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    Ok(())
}

/// What the parser expected, in words.
fn expected(rules: &[Rule]) -> String {
    let mut words: Vec<&str> = rules
        .iter()
        .map(|r| match r {
            Rule::number => "a number",
            Rule::name | Rule::call => "an attribute",
            Rule::neg | Rule::expr | Rule::primary | Rule::prefix => "a value",
            Rule::add | Rule::sub | Rule::mul | Rule::div | Rule::pow | Rule::infix => {
                "an operator (+ - * / ^)"
            }
            Rule::EOI => "the end of the expression",
            _ => "something else",
        })
        .collect();
    words.sort_unstable();
    words.dedup();
    match words.len() {
        0 => "something else".to_string(),
        1 => words[0].to_string(),
        n => format!("{} or {}", words[..n - 1].join(", "), words[n - 1]),
    }
}

fn pratt() -> PrattParser<Rule> {
    PrattParser::new()
        .op(PrattOp::infix(Rule::add, Assoc::Left) | PrattOp::infix(Rule::sub, Assoc::Left))
        .op(PrattOp::infix(Rule::mul, Assoc::Left) | PrattOp::infix(Rule::div, Assoc::Left))
        .op(PrattOp::prefix(Rule::neg))
        .op(PrattOp::infix(Rule::pow, Assoc::Right))
}

impl PriorityExpression {
    /// Parses `text`; the error names the column.
    pub fn parse(text: &str) -> Result<PriorityExpression, ExpressionError> {
        check_bounds(text)?;
        let pairs = PriorityGrammar::parse(Rule::priority, text).map_err(|e| {
            let offset = match e.location {
                pest::error::InputLocation::Pos(p) => p,
                pest::error::InputLocation::Span((p, _)) => p,
            };
            let message = match &e.variant {
                pest::error::ErrorVariant::ParsingError { positives, .. } => {
                    let found = text[offset.min(text.len())..]
                        .chars()
                        .next()
                        .map_or("the end".to_string(), |c| format!("`{c}`"));
                    format!("expected {}, found {found}", expected(positives))
                }
                pest::error::ErrorVariant::CustomError { message } => message.clone(),
            };
            ExpressionError::at(column_of(text, offset), message)
        })?;
        let expr = pairs
            .into_iter()
            .next()
            .and_then(|p| p.into_inner().next())
            .ok_or_else(|| ExpressionError::at(1, "the expression is empty"))?;
        let mut program = Vec::new();
        compile(expr.into_inner(), &pratt(), text, &mut program)?;
        let depth = stack_depth(&program);
        Ok(PriorityExpression {
            text: text.to_string(),
            program,
            depth,
        })
    }

    /// The expression as written.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// Whether the expression reads `a`.
    pub fn reads(&self, a: Attribute) -> bool {
        self.program.contains(&Step::Read(a))
    }

    /// The priority of a job with attributes `at`; `stack` is scratch space (reused between
    /// calls, so evaluating allocates nothing once it has grown).
    pub fn eval(&self, at: &Attributes, stack: &mut Vec<f64>) -> f64 {
        stack.clear();
        stack.reserve(self.depth);
        for step in &self.program {
            match *step {
                Step::Number(x) => stack.push(x),
                Step::Read(a) => stack.push(at.get(a)),
                Step::Neg => {
                    if let Some(x) = stack.last_mut() {
                        *x = -*x;
                    }
                }
                Step::Add | Step::Sub | Step::Mul | Step::Div | Step::Pow => {
                    let b = stack.pop().unwrap_or(f64::NAN);
                    let a = stack.pop().unwrap_or(f64::NAN);
                    stack.push(match step {
                        Step::Add => a + b,
                        Step::Sub => a - b,
                        Step::Mul => a * b,
                        Step::Div => a / b,
                        _ => power(a, b),
                    });
                }
                Step::Call(f, n) => {
                    let from = stack.len().saturating_sub(n);
                    let v = apply(f, &stack[from..]);
                    stack.truncate(from);
                    stack.push(v);
                }
            }
        }
        stack.pop().unwrap_or(f64::NAN)
    }
}

/// a^b; the small whole powers by multiplication (a priority such as WFP3's cube is
/// evaluated for every waiting job at every decision).
pub(crate) fn power(a: f64, b: f64) -> f64 {
    if b == 2.0 {
        a * a
    } else if b == 3.0 {
        a * a * a
    } else {
        libm::pow(a, b)
    }
}

fn apply(f: Function, args: &[f64]) -> f64 {
    let x = args.first().copied().unwrap_or(f64::NAN);
    match f {
        Function::Ln => libm::log(x),
        Function::Log2 => libm::log2(x),
        Function::Log10 => libm::log10(x),
        Function::Sqrt => libm::sqrt(x),
        Function::Exp => libm::exp(x),
        Function::Abs => x.abs(),
        Function::Min => args.iter().copied().fold(f64::INFINITY, f64::min),
        Function::Max => args.iter().copied().fold(f64::NEG_INFINITY, f64::max),
        Function::Pow => power(x, args.get(1).copied().unwrap_or(f64::NAN)),
    }
}

/// The deepest stack `program` reaches.
fn stack_depth(program: &[Step]) -> usize {
    let (mut now, mut most) = (0usize, 0usize);
    for step in program {
        match step {
            Step::Number(_) | Step::Read(_) => now += 1,
            Step::Neg => {}
            Step::Call(_, n) => now = now + 1 - n.min(&now),
            _ => now = now.saturating_sub(1),
        }
        most = most.max(now);
    }
    most
}

/// Appends the postfix program of the expression `pairs` to `out`.
fn compile(
    pairs: Pairs<'_, Rule>,
    pratt: &PrattParser<Rule>,
    text: &str,
    out: &mut Vec<Step>,
) -> Result<(), ExpressionError> {
    // The Pratt parser maps to a tree of closures' results; build the program bottom-up.
    let program = pratt
        .map_primary(|p| -> Result<Vec<Step>, ExpressionError> {
            let column = column_of(text, p.as_span().start());
            match p.as_rule() {
                Rule::number => p
                    .as_str()
                    .parse::<f64>()
                    .map(|x| vec![Step::Number(x)])
                    .map_err(|_| ExpressionError::at(column, "not a number")),
                Rule::name => Attribute::lookup(p.as_str())
                    .map(|a| vec![Step::Read(a)])
                    .ok_or_else(|| {
                        ExpressionError::at(
                            column,
                            format!(
                                "unknown attribute `{}`; the attributes are {}",
                                p.as_str(),
                                Attribute::names()
                            ),
                        )
                    }),
                Rule::call => {
                    let mut inner = p.into_inner();
                    let name = inner.next().map(|n| n.as_str()).unwrap_or_default();
                    let Some(&(_, f, least, most)) =
                        FUNCTIONS.iter().find(|(n, _, _, _)| *n == name)
                    else {
                        let names: Vec<&str> = FUNCTIONS.iter().map(|f| f.0).collect();
                        return Err(ExpressionError::at(
                            column,
                            format!(
                                "unknown function `{name}`; the functions are {}",
                                names.join(", ")
                            ),
                        ));
                    };
                    let mut steps = Vec::new();
                    let mut n = 0;
                    for arg in inner {
                        compile(arg.into_inner(), pratt, text, &mut steps)?;
                        n += 1;
                    }
                    if n < least || n > most {
                        let want = if least == most {
                            format!("{least}")
                        } else {
                            format!("{least} to {most}")
                        };
                        return Err(ExpressionError::at(
                            column,
                            format!("`{name}` takes {want} argument(s), not {n}"),
                        ));
                    }
                    steps.push(Step::Call(f, n));
                    Ok(steps)
                }
                Rule::expr => {
                    let mut steps = Vec::new();
                    compile(p.into_inner(), pratt, text, &mut steps)?;
                    Ok(steps)
                }
                _ => Err(ExpressionError::at(column, "unexpected input")),
            }
        })
        .map_prefix(|_op, rhs| {
            let mut steps = rhs?;
            steps.push(Step::Neg);
            Ok(steps)
        })
        .map_infix(|lhs, op, rhs| {
            let mut steps = lhs?;
            steps.extend(rhs?);
            steps.push(match op.as_rule() {
                Rule::add => Step::Add,
                Rule::sub => Step::Sub,
                Rule::mul => Step::Mul,
                Rule::div => Step::Div,
                _ => Step::Pow,
            });
            Ok(steps)
        })
        .parse(pairs)?;
    out.extend(program);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn eval(text: &str, at: &Attributes) -> f64 {
        PriorityExpression::parse(text)
            .expect("parses")
            .eval(at, &mut Vec::new())
    }

    fn job() -> Attributes {
        Attributes {
            wait: 100.0,
            submit: 50.0,
            estimate: 20.0,
            request: 40.0,
            procs: 8.0,
            user: 3.0,
            queue: -1.0,
            now: 150.0,
        }
    }

    #[test]
    fn arithmetic_precedence_and_attributes() {
        let j = job();
        assert_eq!(eval("wait / estimate", &j), 5.0);
        assert_eq!(eval("1 + 2 * 3", &j), 7.0);
        assert_eq!(eval("(1 + 2) * 3", &j), 9.0);
        assert_eq!(eval("-2^2", &j), -4.0);
        assert_eq!(eval("2^3^2", &j), 512.0);
        assert_eq!(eval("10 - 4 - 3", &j), 3.0);
        assert_eq!(eval("area", &j), 160.0);
        assert_eq!(eval("max(procs, user, 1)", &j), 8.0);
        assert_eq!(eval("min(request, estimate)", &j), 20.0);
        assert_eq!(eval("log2(procs)", &j), 3.0);
        assert_eq!(eval("sqrt(wait) + log10(100) + abs(-1)", &j), 13.0);
        assert_eq!(eval("pow(2, 10)", &j), 1024.0);
        assert_eq!(eval("1.5e2 + .5", &j), 150.5);
        assert_eq!(eval("now - submit - wait", &j), 0.0);
        // WFP3 and UNICEF written by hand.
        assert_eq!(eval("(wait / estimate)^3 * procs", &j), 1000.0);
        assert_eq!(eval("wait / (log2(procs) * estimate)", &j), 100.0 / 60.0);
    }

    #[test]
    fn errors_name_the_column() {
        let e = PriorityExpression::parse("wait / estimat").expect_err("unknown");
        assert_eq!(e.column, 8);
        assert!(e.message.contains("unknown attribute `estimat`"), "{e}");
        let e = PriorityExpression::parse("wait / ").expect_err("dangling");
        assert_eq!(e.column, 8);
        assert!(e.message.starts_with("expected"), "{e}");
        let e = PriorityExpression::parse("wait ** 2").expect_err("two operators");
        assert_eq!(e.column, 7);
        let e = PriorityExpression::parse("frob(wait)").expect_err("unknown function");
        assert_eq!(e.column, 1);
        assert!(e.message.contains("unknown function `frob`"), "{e}");
        let e = PriorityExpression::parse("pow(wait)").expect_err("arity");
        assert!(e.message.contains("takes 2 argument(s), not 1"), "{e}");
        let e = PriorityExpression::parse("(wait").expect_err("unclosed");
        assert_eq!(e.column, 6);
        let e = PriorityExpression::parse("   ").expect_err("empty");
        assert_eq!(e.column, 1);
        assert_eq!(
            e.pointer("wait / estimat"),
            "wait / estimat\n^",
            "pointer of column 1"
        );
    }

    #[test]
    fn bounds_on_length_and_depth() {
        let long = "wait + ".repeat(60) + "1";
        let e = PriorityExpression::parse(&long).expect_err("too long");
        assert!(e.message.contains("at most 400"), "{e}");
        let deep = format!("{}wait{}", "(".repeat(17), ")".repeat(17));
        let e = PriorityExpression::parse(&deep).expect_err("too deep");
        assert_eq!(e.column, 17);
        let ok = format!("{}wait{}", "(".repeat(16), ")".repeat(16));
        assert_eq!(eval(&ok, &job()), 100.0);
        // A long flat chain evaluates without recursion.
        let chain = "1+".repeat(199) + "1";
        assert_eq!(eval(&chain, &job()), 200.0);
    }

    #[test]
    fn reads_reports_the_attributes_used() {
        let e = PriorityExpression::parse("wait / estimate").expect("parses");
        assert!(e.reads(Attribute::Wait) && e.reads(Attribute::Estimate));
        assert!(!e.reads(Attribute::User));
    }
}
