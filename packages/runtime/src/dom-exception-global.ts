/**
 * Publishes DOMException as soon as the bundle starts evaluating, ahead of any library that reads
 * it off the global object when it loads (web-streams-polyfill does).
 */
import { DOMException } from './dom-exception.ts';
import { exposeInterface } from './global-scope.ts';

exposeInterface('DOMException', DOMException);
