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
    /// Rules are ordered; the first one that matches decides (Gemini CLI,
    /// its rules sorted by priority).
    FirstMatchWins,
}

impl Precedence {
    /// How strongly the rule at `index` (in rule order) with `action`
    /// claims a call it matches: of the matching rules, the one with the
    /// smallest rank decides.
    pub fn rank(self, index: usize, action: Action) -> (usize, usize) {
        match self {
            Precedence::LastMatchWins => (usize::MAX - index, 0),
            Precedence::DenyAskAllow => (Action::Deny as usize - action as usize, index),
            Precedence::FirstMatchWins => (index, 0),
        }
    }

    /// The index of the deciding rule among `matching` (in rule order),
    /// each with its action; `None` when nothing matches.
    pub fn decide(self, matching: impl IntoIterator<Item = (usize, Action)>) -> Option<usize> {
        matching
            .into_iter()
            .min_by_key(|&(i, a)| self.rank(i, a))
            .map(|(i, _)| i)
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
