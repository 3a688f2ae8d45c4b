//! What tokens cost: Anthropic's list prices as of a date, kept by the
//! program to estimate a cost where the CLI records none (`sessions
//! usage`, the status line). An estimate, dated, not an SDK fact.

use claudio::store::Tokens;

/// USD per million tokens: input, output, cache write, cache read.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Price {
    /// Model-name prefix it applies to.
    prefix: &'static str,
    /// Per million input tokens.
    input: f64,
    /// Per million output tokens.
    output: f64,
    /// Per million tokens written to the cache (5-minute cache).
    cache_write: f64,
    /// Per million tokens read from the cache.
    cache_read: f64,
}

/// When the built-in prices were taken from Anthropic's price list.
pub const PRICES_DATE: &str = "2025-11-24";

/// Anthropic's list prices, longest prefix first. Models not here have no
/// price: their tokens are counted, their cost is not guessed. The table is
/// the program's own: a cost comes from [`estimate_cost`] and its date
/// from [`PRICES_DATE`].
const PRICES: &[Price] = &[
    Price {
        prefix: "claude-opus-4-5",
        input: 5.0,
        output: 25.0,
        cache_write: 6.25,
        cache_read: 0.5,
    },
    Price {
        prefix: "claude-opus-4",
        input: 15.0,
        output: 75.0,
        cache_write: 18.75,
        cache_read: 1.5,
    },
    Price {
        prefix: "claude-sonnet-4",
        input: 3.0,
        output: 15.0,
        cache_write: 3.75,
        cache_read: 0.3,
    },
    Price {
        prefix: "claude-3-7-sonnet",
        input: 3.0,
        output: 15.0,
        cache_write: 3.75,
        cache_read: 0.3,
    },
    Price {
        prefix: "claude-3-5-sonnet",
        input: 3.0,
        output: 15.0,
        cache_write: 3.75,
        cache_read: 0.3,
    },
    Price {
        prefix: "claude-haiku-4-5",
        input: 1.0,
        output: 5.0,
        cache_write: 1.25,
        cache_read: 0.1,
    },
    Price {
        prefix: "claude-3-5-haiku",
        input: 0.8,
        output: 4.0,
        cache_write: 1.0,
        cache_read: 0.08,
    },
];

/// The price of a model, if the table has it.
fn price_of(model: &str) -> Option<&'static Price> {
    PRICES.iter().find(|p| model.starts_with(p.prefix))
}

/// An estimate of what `tokens` of `model` cost, in USD; `None` when the
/// model has no price in the table.
pub fn estimate_cost(model: &str, tokens: &Tokens) -> Option<f64> {
    let p = price_of(model)?;
    let m = |n: u64, per: f64| n as f64 * per / 1e6;
    Some(
        m(tokens.input, p.input)
            + m(tokens.output, p.output)
            + m(tokens.cache_write, p.cache_write)
            + m(tokens.cache_read, p.cache_read),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn costs_are_estimated_only_for_known_models() {
        let mut t = Tokens::default();
        (t.input, t.output, t.cache_read) = (1_000_000, 1_000_000, 1_000_000);
        assert_eq!(
            estimate_cost("claude-sonnet-4-5-20250929", &t),
            Some(3.0 + 15.0 + 0.3)
        );
        assert_eq!(estimate_cost("claude-opus-4-5", &t), Some(5.0 + 25.0 + 0.5));
        assert_eq!(
            estimate_cost("claude-opus-4-1", &t),
            Some(15.0 + 75.0 + 1.5)
        );
        assert_eq!(estimate_cost("claude-opus-5-5", &t), None);
        let price = price_of("claude-haiku-4-5-20251001").expect("listed");
        assert_eq!((price.input, price.output), (1.0, 5.0));
        assert!(price_of("gpt-4").is_none());
    }
}
