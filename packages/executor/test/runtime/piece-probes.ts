/**
 * A probe the tests of the runtime pieces share: program text that makes a piece's first use in the
 * innermost frames of a stack that ran out, so the load meets the stack's end in its middle. Each try
 * compiles the piece afresh until one succeeds; only the innermost frames try, so the test stays
 * short. It leaves `outcomes`, a Set, holding 'loaded' once a use succeeded and `name: message` of
 * each error a try met. `alsoEachTry`, when given, is a statement every one of those frames runs
 * after its try (a second load to meet the stack's end, whose outcomes the caller keeps).
 */
export function firstUseOnAnExhaustedStack(use: string, alsoEachTry = ''): string {
  return `const outcomes = new Set();
    let deepest = -1;
    const dive = (depth) => {
      try {
        dive(depth + 1);
      } catch (error) {
        if (deepest < 0) deepest = depth;
        if (deepest - depth < 400) {
          if (!outcomes.has('loaded')) {
            try { ${use}; outcomes.add('loaded'); } catch (inner) { outcomes.add(inner.name + ': ' + inner.message); }
          }
          ${alsoEachTry}
        }
        throw error;
      }
    };
    try { dive(0); } catch {}`;
}

/** What the probe leaves when the load met the stack's end at least once and then succeeded. */
export const OVERFLOWED_THEN_LOADED = ['RangeError: Maximum call stack size exceeded', 'loaded'];
