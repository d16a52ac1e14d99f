// AES-256-GCM for tenant secrets (node:crypto). A sealed value is one bytea:
//   version (1 byte, 0x01) | IV (12 random bytes) | auth tag (16 bytes) | ciphertext
// The tenant id and the secret's name are the additional authenticated data, so a sealed value
// copied to another tenant or name fails to open instead of revealing the original.
//
//   sealSecret(key, {tenantId, name}, value) → Buffer
//   openSecret(key, {tenantId, name}, sealed) → string   (throws on tampering or a wrong key)
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

const VERSION = 1;
const IV_BYTES = 12;
const TAG_BYTES = 16;

export interface SecretOwner {
  tenantId: string;
  name: string;
}

function additionalData(owner: SecretOwner): Buffer {
  return Buffer.from(`hermesx-secret:v${VERSION}:${owner.tenantId}:${owner.name}`, 'utf8');
}

export function sealSecret(key: Buffer, owner: SecretOwner, value: string): Buffer {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key, iv, { authTagLength: TAG_BYTES });
  cipher.setAAD(additionalData(owner));
  const ciphertext = Buffer.concat([cipher.update(value, 'utf8'), cipher.final()]);
  return Buffer.concat([Buffer.from([VERSION]), iv, cipher.getAuthTag(), ciphertext]);
}

export function openSecret(key: Buffer, owner: SecretOwner, sealed: Buffer): string {
  if (sealed.length < 1 + IV_BYTES + TAG_BYTES || sealed[0] !== VERSION) {
    throw new Error(`secret ${owner.name}: unknown format`);
  }
  const iv = sealed.subarray(1, 1 + IV_BYTES);
  const tag = sealed.subarray(1 + IV_BYTES, 1 + IV_BYTES + TAG_BYTES);
  const decipher = createDecipheriv('aes-256-gcm', key, iv, { authTagLength: TAG_BYTES });
  decipher.setAAD(additionalData(owner));
  decipher.setAuthTag(tag);
  try {
    const plain = Buffer.concat([
      decipher.update(sealed.subarray(1 + IV_BYTES + TAG_BYTES)),
      decipher.final(),
    ]);
    return plain.toString('utf8');
  } catch {
    // Never the value, never the key: only that it did not open.
    throw new Error(
      `secret ${owner.name} cannot be decrypted (HERMES_SECRETS_KEY differs from the key it was written with)`,
    );
  }
}
