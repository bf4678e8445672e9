//! Precedence strategies: how a format picks the deciding rule among the
//! rules that match a call.

/// An action a rule can take: the shared decision type.
pub use super::decision::Decision as Action;

/// How the deciding rule is chosen among the matching ones.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Precedence {
    /// Rules are ordered; the last one that matches decides
    /// (pi-permission-system, OpenCode).
    LastMatchWins,
    /// Every matching rule counts; deny beats ask beats allow, and the
    /// first rule of the winning action decides (Claude Code).
    DenyAskAllow,
}

impl Precedence {
    /// The index of the deciding rule among `matching` (in rule order),
    /// each with its action; `None` when nothing matches.
    pub fn decide(self, matching: impl IntoIterator<Item = (usize, Action)>) -> Option<usize> {
        match self {
            Precedence::LastMatchWins => matching.into_iter().last().map(|(i, _)| i),
            Precedence::DenyAskAllow => {
                let mut best: Option<(usize, Action)> = None;
                for (i, a) in matching {
                    if best.is_none_or(|(_, b)| a > b) {
                        best = Some((i, a));
                    }
                }
                best.map(|(i, _)| i)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use Action::*;

    #[test]
    fn last_match_wins() {
        let m = [(0, Deny), (3, Allow), (5, Ask)];
        assert_eq!(Precedence::LastMatchWins.decide(m), Some(5));
        assert_eq!(Precedence::LastMatchWins.decide([]), None);
    }

    #[test]
    fn deny_beats_ask_beats_allow_first_of_its_kind() {
        let m = [(0, Allow), (1, Ask), (2, Deny), (4, Deny), (5, Ask)];
        assert_eq!(Precedence::DenyAskAllow.decide(m), Some(2));
        assert_eq!(
            Precedence::DenyAskAllow.decide([(0, Allow), (1, Ask)]),
            Some(1)
        );
        assert_eq!(
            Precedence::DenyAskAllow.decide([(7, Allow), (9, Allow)]),
            Some(7)
        );
    }
}
