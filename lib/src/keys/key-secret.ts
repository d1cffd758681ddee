import { randomBytes, timingSafeEqual } from 'node:crypto';
import { crc32 } from 'node:zlib';
import { sha256Hex } from '../sha256-hex.js';

/**
 * API key secrets, in GitHub's token format: a prefix that says what the
 * string is (so scanners and people can tell), random base62 characters, and
 * a CRC32 of them in six base62 characters, so a mistyped or made-up secret
 * is refused without a database read. 30 random characters carry 178 bits.
 */
export const KEY_SECRET_PREFIX = 'sy_';
const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const RANDOM_CHARS = 30;
const CHECKSUM_CHARS = 6;
const SECRET_PATTERN = new RegExp(`^${KEY_SECRET_PREFIX}([0-9A-Za-z]{${RANDOM_CHARS}})([0-9A-Za-z]{${CHECKSUM_CHARS}})$`);
/** The length of every secret: prefix, random part, checksum. */
export const KEY_SECRET_LENGTH = KEY_SECRET_PREFIX.length + RANDOM_CHARS + CHECKSUM_CHARS;

/** A fresh secret from the system's CSPRNG. */
export function newKeySecret(): string {
  let random = '';
  while (random.length < RANDOM_CHARS) {
    // 248 = 4 × 62: bytes at or above it are dropped, so every character is equally likely.
    for (const byte of randomBytes(RANDOM_CHARS * 2)) {
      if (byte < 248 && random.length < RANDOM_CHARS) random += BASE62[byte % 62];
    }
  }
  return `${KEY_SECRET_PREFIX}${random}${checksumOf(random)}`;
}

/** Whether a bearer string claims to be a key (and so is judged as one, never as a JWT). */
export function looksLikeKeySecret(bearer: string): boolean {
  return bearer.startsWith(KEY_SECRET_PREFIX);
}

/** Whether `secret` has the format and a matching checksum: a cheap check that needs no database. */
export function isWellFormedKeySecret(secret: string): boolean {
  const match = SECRET_PATTERN.exec(secret);
  return match !== null && checksumOf(match[1]!) === match[2];
}

/**
 * What is stored of a secret: its SHA-256, hex. The secret itself is never kept.
 * Every call a key authenticates computes it once (rest-get-asset-key).
 */
export function keySecretDigest(secret: string): string {
  return sha256Hex(secret);
}

/** Compares two digests in constant time (for equal lengths, as digests are). */
export function digestsEqual(a: string, b: string): boolean {
  const left = Buffer.from(a, 'hex');
  const right = Buffer.from(b, 'hex');
  return left.length === right.length && timingSafeEqual(left, right);
}

function checksumOf(random: string): string {
  let value = crc32(random);
  let text = '';
  for (let i = 0; i < CHECKSUM_CHARS; i++) {
    text = BASE62[value % 62]! + text;
    value = Math.floor(value / 62);
  }
  return text;
}
