/**
 * A static import's specifier as the program wrote it. isolated-vm 7.0.1 (and the releases before
 * it) hands the resolver of `instantiate` a specifier's UTF-8 bytes as if each byte were one
 * Latin-1 character, where 7.0.2 passes the text through: on the older engines `./é.js`
 * arrives as `./Ã©.js`, so a module map key or an allowed package's subpath with a character past
 * ASCII was never found, and the not-found sentence named a text the program never wrote.
 * (import() is untouched: its specifier reaches the sandbox's loader as a string argument.)
 *
 * Whether this engine does so is asked once per process, of a module of its own in an isolate of
 * its own, the first time a specifier could be such bytes (every character at most U+00FF, one
 * past ASCII); an engine that passes the text through is answered with it as it came.
 */
import ivm from 'isolated-vm';

/** Whether the engine's resolver receives UTF-8 bytes as Latin-1; undefined until first asked. */
let readsBytes: boolean | undefined;

/** `specifier` as the resolver received it, made the text the program wrote. */
export function programSpecifier(specifier: string): string {
  // Pure ASCII, or a character no byte can be: nothing was read as bytes.
  if (!/[\u0080-\u00ff]/.test(specifier) || /[\u0100-\uffff]/.test(specifier)) return specifier;
  readsBytes ??= resolverReadsBytes();
  if (!readsBytes) return specifier;
  try {
    return UTF8.decode(Buffer.from(specifier, 'latin1'));
  } catch {
    // Characters that are no UTF-8 as bytes were never UTF-8: they came as written.
    return specifier;
  }
}

const UTF8 = new TextDecoder('utf-8', { fatal: true });

/** What the resolver of this engine receives for `import 'é'`: `Ã©` when it reads bytes. */
function resolverReadsBytes(): boolean {
  const isolate = new ivm.Isolate({ memoryLimit: 8 });
  try {
    const context = isolate.createContextSync();
    const module = isolate.compileModuleSync('import "\u00e9";');
    let received: string | undefined;
    try {
      module.instantiateSync(context, (specifier) => {
        received = specifier;
        throw new Error('the probe only reads the specifier');
      });
    } catch {
      // Thrown by the resolver above.
    }
    return received === '\u00c3\u00a9';
  } finally {
    isolate.dispose();
  }
}
