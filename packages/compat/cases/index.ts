/**
 * The corpus: one file per area, in the order. Adding an area means adding it to AREAS
 * (src/case.ts), writing cases/<area>.ts, and listing it here.
 */
import type { AreaCase } from '../src/case.ts';
import abort from './abort.ts';
import base64 from './base64.ts';
import blobFormdataStreams from './blob-formdata-streams.ts';
import consoleCases from './console.ts';
import cryptoRandom from './crypto-random.ts';
import cryptoSubtle from './crypto-subtle.ts';
import encoding from './encoding.ts';
import errorTexts from './error-texts.ts';
import errors from './errors.ts';
import events from './events.ts';
import fetchCases from './fetch.ts';
import globalScope from './global-scope.ts';
import handlers from './handlers.ts';
import headers from './headers.ts';
import memory from './memory.ts';
import microtasks from './microtasks.ts';
import modules from './modules.ts';
import requestResponse from './request-response.ts';
import structuredClone from './structured-clone.ts';
import timers from './timers.ts';
import url from './url.ts';

export const CORPUS: readonly AreaCase[] = [
  ...url,
  ...encoding,
  ...base64,
  ...structuredClone,
  ...events,
  ...abort,
  ...headers,
  ...requestResponse,
  ...blobFormdataStreams,
  ...fetchCases,
  ...cryptoRandom,
  ...cryptoSubtle,
  ...timers,
  ...microtasks,
  ...consoleCases,
  ...errors,
  ...modules,
  ...globalScope,
  ...handlers,
  ...errorTexts,
  ...memory,
];
