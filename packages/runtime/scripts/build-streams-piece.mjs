/**
 * Builds the streams runtime piece (../src/pieces.ts): web-streams-polyfill, kept out of the
 * startup snapshot and compiled into an isolate by the first program that makes a stream. The
 * snapshot holds only the interface objects (src/streams/index.ts, texts.ts); their prototypes are
 * connected to the polyfill's classes when the piece loads.
 *
 * The polyfill's ES5 build is the one bundled, because its classes are functions: a function's
 * `prototype` can be pointed at the interface's own prototype, so the streams the polyfill makes
 * inside (a tee's branches, a TransformStream's sides) inherit from what the program sees, and the
 * polyfill's `instanceof` checks hold for them. A `class`'s prototype cannot be moved.
 *
 * ./build.ts calls streamsPiece and checks publicShape against the interfaces
 * src/streams/shape.ts describes, so a polyfill that grows or loses a member stops the build.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const runtimeRoot = join(dirname(fileURLToPath(import.meta.url)), '..');
const requireFromRuntime = createRequire(join(runtimeRoot, 'package.json'));
const polyfillDir = dirname(requireFromRuntime.resolve('web-streams-polyfill/package.json'));

/**
 * The factory's second parameter (../src/pieces.ts): the snapshot's values of what the polyfill reads
 * when it evaluates. In the snapshot it evaluated before any program ran; now it evaluates on a
 * program's first stream, after the program could replace globals or their members, so each such
 * read is pointed at this parameter. Reads made on each call stay what they were.
 */
const SNAPSHOT_VALUES = '__snapshotValues';

/** Globals the polyfill's top level names, bound to the snapshot's values for the whole piece. */
const SHADOWED = [
  ['Symbol', 'SymbolCtor'],
  ['Promise', 'PromiseCtor'],
];

/** The polyfill's top-level reads of globals' members, each with what it becomes. */
const CAPTURES = [
  ['a=Promise.resolve.bind(i)', `a=${SNAPSHOT_VALUES}.PromiseResolve`],
  ['u=Promise.prototype.then', `u=${SNAPSHOT_VALUES}.PromiseThen`],
  ['l=Promise.reject.bind(i)', `l=${SNAPSHOT_VALUES}.PromiseReject`],
  ['D=Number.isFinite||', `D=${SNAPSHOT_VALUES}.NumberIsFinite||`],
  ['Ce=Number.isNaN||', `Ce=${SNAPSHOT_VALUES}.NumberIsNaN||`],
  ['L=Math.trunc||', `L=${SNAPSHOT_VALUES}.MathTrunc||`],
  ['St=null==gt?void 0:gt.DOMException', `St=${SNAPSHOT_VALUES}.DOMException`],
];

const captures = {
  name: 'codemode-streams-captures',
  setup(plugin) {
    plugin.onLoad({ filter: /[\\/]web-streams-polyfill[\\/]dist[\\/]ponyfill\.es5\.mjs$/ }, (args) => {
      let contents = readFileSync(args.path, 'utf8');
      for (const [read, pinned] of CAPTURES) {
        // A polyfill that no longer reads it this way must be looked at again, not bundled as is.
        if (contents.split(read).length !== 2)
          throw new Error(`web-streams-polyfill no longer has \`${read}\` once: see CAPTURES.`);
        contents = contents.replace(read, pinned);
      }
      return { contents, loader: 'js' };
    });
  },
};

/** Each class's own members but its tag, as [key, kind]: Symbol.asyncIterator as `@@asyncIterator`. */
function shapeOf(target) {
  return Reflect.ownKeys(target)
    .filter(
      (key) => !['constructor', 'length', 'name', 'prototype'].includes(key) && key !== Symbol.toStringTag,
    )
    .map((key) => {
      const descriptor = Object.getOwnPropertyDescriptor(target, key);
      const kind = typeof descriptor.value === 'function' ? 'method' : descriptor.get ? 'getter' : 'value';
      return [typeof key === 'symbol' ? `@@${key.description.replace(/^Symbol\./, '')}` : key, kind];
    });
}

export async function streamsPiece() {
  const result = await build({
    absWorkingDir: runtimeRoot,
    bundle: true,
    write: false,
    platform: 'neutral',
    target: 'es2024',
    legalComments: 'none',
    logLevel: 'silent',
    stdin: {
      contents: "export * from 'web-streams-polyfill/es5';\n",
      resolveDir: runtimeRoot,
      sourcefile: 'streams-piece.js',
    },
    format: 'iife',
    globalName: 'streams',
    minifyWhitespace: true,
    minifySyntax: true,
    plugins: [captures],
  });
  const shadow = SHADOWED.map(([name, value]) => `${name}=${SNAPSHOT_VALUES}.${value}`).join(',');
  // The prototypes each class had when it evaluated, before src/streams/index.ts points them elsewhere: a
  // load retried after a throw part-way through connecting still finds the polyfill's own.
  const source = `(function(Object,${SNAPSHOT_VALUES}){"use strict";var ${shadow};${result.outputFiles[0].text}var prototypes={__proto__:null},names=Object.keys(streams);for(var index=0;index<names.length;index++)prototypes[names[index]]=streams[names[index]].prototype;return{classes:streams,prototypes:prototypes};})`;
  const polyfill = await import(join(polyfillDir, 'dist/ponyfill.es5.mjs'));
  const publicShape = Object.fromEntries(
    Object.entries(polyfill).map(([name, value]) => [
      name,
      {
        prototype: shapeOf(value.prototype).filter(([key]) => !key.startsWith('@@[[')),
        statics: shapeOf(value),
      },
    ]),
  );
  const version = JSON.parse(readFileSync(join(polyfillDir, 'package.json'), 'utf8')).version;
  const license = readFileSync(join(polyfillDir, 'LICENSE'), 'utf8')
    .trimEnd()
    .split('\n')
    .map((line) => ` *   ${line}`.trimEnd())
    .join('\n');
  return { source, publicShape, licenses: ` * web-streams-polyfill ${version}:\n *\n${license}` };
}
