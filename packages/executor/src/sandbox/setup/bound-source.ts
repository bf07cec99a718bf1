/**
 * The sandbox's isolate-side code lives in sandbox/inside, where the type checker and the linter
 * read it; the generator turns each file into source text (generated/sandbox-sources.generated.ts).
 * An installer that needs host values (a limit, an error text) takes them as its first parameter,
 * one object, so no host value is spliced into code. The names the sandbox's specification pins
 * (TIMERS_SOURCE, DISPATCH_SOURCE...) stay functions of the references alone: this binds the values.
 */

/** Host values as the installers take them: JSON, so they cross into the text as literals only. */
export type InstallValues = Readonly<Record<string, string | number>>;

/** The text of a function of `references` that calls `installer` with `values` and then them. */
export function bindValues(installer: string, values: InstallValues, references: readonly string[]): string {
  const names = references.join(', ');
  return `((${names}) => ${installer}(${JSON.stringify(values)}, ${names}))`;
}
