/**
 * DISPATCH_CODEC_SOURCE: the protocol package's dispatch codec written out as source text, because
 * code inside the isolate cannot import from the host. It is generated from
 * packages/protocol/src/codec.ts (scripts/generate-sources.ts), so the two faces of
 * the codec are one text; codec.test.ts requires their wire output to be identical.
 */
export { DISPATCH_CODEC_SOURCE } from './generated/codec-source.generated.ts';
