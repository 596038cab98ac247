//! A calculator tool: exact integer arithmetic with `+ - * /`, parentheses
//! and unary minus. Division must be exact; overflow, division by zero and
//! syntax errors are reported as text (they become an error observation for
//! the agent, never a crash).
//!
//! ```
//! use agentlab::envs::calculator::Calculator;
//! assert_eq!(Calculator.eval("4312+17"), Ok(4329));
//! assert_eq!(Calculator.eval("(2+3)*-4"), Ok(-20));
//! assert!(Calculator.eval("7/2").unwrap_err().contains("not a whole number"));
//! ```

#[derive(Debug, Clone, Copy, Default)]
pub struct Calculator;

impl Calculator {
    pub fn eval(&self, expr: &str) -> Result<i64, String> {
        let tokens = tokenize(expr)?;
        if tokens.is_empty() {
            return Err("empty expression".into());
        }
        let mut p = Parser { tokens, pos: 0 };
        let v = p.expr()?;
        if p.pos != p.tokens.len() {
            return Err(format!("unexpected '{}'", p.tokens[p.pos]));
        }
        i64::try_from(v).map_err(|_| "result too large".to_string())
    }
}

#[derive(Debug, Clone, PartialEq)]
enum Tok {
    Num(i128),
    Op(char),
}

impl std::fmt::Display for Tok {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Tok::Num(n) => write!(f, "{n}"),
            Tok::Op(c) => write!(f, "{c}"),
        }
    }
}

fn tokenize(s: &str) -> Result<Vec<Tok>, String> {
    let mut out = Vec::new();
    let chars: Vec<char> = s.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c.is_whitespace() {
            i += 1;
        } else if c.is_ascii_digit() {
            let start = i;
            while i < chars.len() && chars[i].is_ascii_digit() {
                i += 1;
            }
            let digits: String = chars[start..i].iter().collect();
            out.push(Tok::Num(digits.parse().map_err(|_| "number too large".to_string())?));
        } else if "+-*/()".contains(c) {
            out.push(Tok::Op(c));
            i += 1;
        } else if c == 'x' || c == '×' {
            out.push(Tok::Op('*'));
            i += 1;
        } else {
            return Err(format!("unexpected character '{c}'"));
        }
    }
    Ok(out)
}

/// Recursive descent: expr = term (('+'|'-') term)*, term = factor (('*'|'/') factor)*.
struct Parser {
    tokens: Vec<Tok>,
    pos: usize,
}

impl Parser {
    fn peek(&self) -> Option<&Tok> {
        self.tokens.get(self.pos)
    }

    fn expr(&mut self) -> Result<i128, String> {
        let mut v = self.term()?;
        while let Some(Tok::Op(op @ ('+' | '-'))) = self.peek().cloned() {
            self.pos += 1;
            let r = self.term()?;
            v = if op == '+' { v.checked_add(r) } else { v.checked_sub(r) }.ok_or("overflow")?;
        }
        Ok(v)
    }

    fn term(&mut self) -> Result<i128, String> {
        let mut v = self.factor()?;
        while let Some(Tok::Op(op @ ('*' | '/'))) = self.peek().cloned() {
            self.pos += 1;
            let r = self.factor()?;
            v = if op == '*' {
                v.checked_mul(r).ok_or("overflow")?
            } else {
                if r == 0 {
                    return Err("division by zero".into());
                }
                // i128::MIN / -1 overflows (and would panic in `%`): an error like any other overflow.
                if v.checked_rem(r).ok_or("overflow")? != 0 {
                    return Err(format!("{v}/{r} is not a whole number"));
                }
                v.checked_div(r).ok_or("overflow")?
            };
        }
        Ok(v)
    }

    fn factor(&mut self) -> Result<i128, String> {
        match self.peek().cloned() {
            Some(Tok::Num(n)) => {
                self.pos += 1;
                Ok(n)
            }
            Some(Tok::Op('-')) => {
                self.pos += 1;
                Ok(self.factor()?.checked_neg().ok_or("overflow")?)
            }
            Some(Tok::Op('(')) => {
                self.pos += 1;
                let v = self.expr()?;
                match self.peek() {
                    Some(Tok::Op(')')) => {
                        self.pos += 1;
                        Ok(v)
                    }
                    _ => Err("missing ')'".into()),
                }
            }
            Some(t) => Err(format!("unexpected '{t}'")),
            None => Err("expression ends too early".into()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn precedence_parentheses_and_unary_minus() {
        let c = Calculator;
        assert_eq!(c.eval("2+3*4"), Ok(14));
        assert_eq!(c.eval("(2+3)*4"), Ok(20));
        assert_eq!(c.eval("-3 - -4"), Ok(1));
        assert_eq!(c.eval("100/4/5"), Ok(5));
        assert_eq!(c.eval("12 x 3"), Ok(36));
    }

    #[test]
    fn errors_are_messages_not_panics() {
        let c = Calculator;
        for bad in [
            "",
            "2+",
            "1,250",
            "(1+2",
            "1/0",
            "abc",
            "5 5",
            "99999999999999999999*99999999999999999999",
            "7/2",
            "(-170141183460469231731687303715884105727-1)/-1",
            "-(-170141183460469231731687303715884105727-1)",
        ] {
            assert!(c.eval(bad).is_err(), "{bad}");
        }
    }
}
