// Property tests are part of the gate, so every run, local or CI, starts from one fixed seed and
// runs a fixed count (never a time budget, which a loaded machine cuts short): the verdict of a
// commit is the same wherever it runs. `FC_SEED=<n>` explores from another seed; a counterexample
// found that way is fixed and kept as a regression test.
import fc from 'fast-check';

const seed = Number(process.env.FC_SEED ?? '20261123');
fc.configureGlobal({ ...fc.readConfigureGlobal(), seed });
