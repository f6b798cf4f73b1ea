// @ts-check
// Protocol v1 frames in the page: one WebSocket binary message is one frame body, the
// same MessagePack map a TCP frame carries after its 4-byte length (PROTOCOL.md,
// "WebSocket transport"). The codec is the vendored @msgpack/msgpack, the library the
// JavaScript starter uses. 64-bit integers decode as BigInt, so an id near 2^64 is kept
// exact; every other number stays a Number.
import { decode, encode } from "./msgpack.min.js";

const options = { useBigInt64: true };

/** A message (a plain object with its "type") as the bytes of one frame body.
 * @param {Record<string, unknown>} message
 * @returns {Uint8Array} */
export function encodeBody(message) {
  return encode(message, options);
}

/** One frame body as a message; throws when it is not one MessagePack map.
 * @param {ArrayBuffer | Uint8Array} bytes
 * @returns {Record<string, any>} */
export function decodeBody(bytes) {
  const message = decode(bytes instanceof ArrayBuffer ? new Uint8Array(bytes) : bytes, options);
  if (message === null || typeof message !== "object" || Array.isArray(message)) {
    throw new Error("a frame that is not a map");
  }
  return /** @type {Record<string, any>} */ (message);
}
