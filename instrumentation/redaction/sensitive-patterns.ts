/**
 * The default sensitive-data patterns: the seed's list (004 §八.3, "敏感信息":
 * 身份证号, 手机号, 银行账户, 密钥和 Token) plus e-mail addresses and private
 * keys. Numbers are only redacted when their check digits hold (checksums.ts),
 * so look-alikes — order numbers, timestamps — stay readable.
 *
 * Boundaries are written as "no digit (or word character) next to the match"
 * rather than `\b`, because Chinese text puts digits right against characters
 * (`身份证号110101…，`) where a word boundary is not what one expects.
 */
import { isChineseResidentId, passesLuhn } from "./checksums.js";

export interface SensitivePattern {
  /** Short name, written into the replacement: `[REDACTED:<name>]`. */
  readonly name: string;
  /** Must have the global flag; every match is a candidate. */
  readonly pattern: RegExp;
  /** A candidate is redacted only when this accepts it (check digits, length). */
  readonly validate?: (match: string) => boolean;
  /**
   * A cheap test (no global flag) that every text holding a match passes;
   * texts that fail it are not scanned with `pattern` (redaction.bench figures:
   * most text holds no candidate at all).
   */
  readonly prefilter?: RegExp;
}

/** Any run of digits long enough for an id card, a bank card or a phone number. */
const LONG_NUMBER = /\d{7}|\d{3}[ -]\d{4}/;

export const privateKeyPattern: SensitivePattern = {
  name: "private_key",
  // A PEM or PGP private key block; a block cut off before its END line (a
  // truncated attribute) is redacted up to the end of its base64 body.
  pattern:
    /-----BEGIN ((?:[A-Z0-9]+ )*)PRIVATE KEY( BLOCK)?-----(?:[\s\S]*?-----END \1PRIVATE KEY\2-----|[A-Za-z0-9+/=:\s-]*)/g,
  prefilter: /PRIVATE KEY/,
};

export const apiKeyPattern: SensitivePattern = {
  name: "api_key",
  pattern: new RegExp(
    [
      /(?<![A-Za-z0-9_-])sk-(?:proj-|ant-(?:api\d{2}-)?|svcacct-)?[A-Za-z0-9_-]{20,}/.source, // OpenAI, Anthropic
      /(?<![A-Za-z0-9_])gh[pousr]_[A-Za-z0-9]{36,}/.source, // GitHub tokens
      /(?<![A-Za-z0-9_])github_pat_[A-Za-z0-9_]{22,}/.source,
      /(?<![A-Za-z0-9])(?:AKIA|ASIA)[0-9A-Z]{16}(?![0-9A-Za-z])/.source, // AWS access key ids
      /(?<![A-Za-z0-9_-])AIza[0-9A-Za-z_-]{35}/.source, // Google API keys
      /(?<![A-Za-z0-9_-])xox[abposr]-[A-Za-z0-9-]{10,}/.source, // Slack
      /(?<![A-Za-z0-9_])(?:sk|rk)_(?:live|test)_[0-9A-Za-z]{16,}/.source, // Stripe secret keys
      /(?<![A-Za-z0-9_-])eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/.source, // JWT
      /(?<=\bBearer\s+)[A-Za-z0-9._~+/-]{16,}=*/.source, // HTTP bearer tokens
    ].join("|"),
    "g",
  ),
  prefilter: /sk-|gh[pousr]_|github_pat_|A[KS]IA|AIza|xox|_(?:live|test)_|eyJ|Bearer/,
};

export const secretAssignmentPattern: SensitivePattern = {
  name: "secret",
  // The value after a key word: `api_key=…`, `"token": "…"`, `密钥：…`.
  pattern:
    /(?<=(?:\b(?:api[_-]?key|apikey|access[_-]?key|secret[_-]?key|client[_-]?secret|access[_-]?token|auth[_-]?token|refresh[_-]?token|token|secret|password|passwd)|密钥|秘钥|令牌|口令|密码)["']?\s*[:=：]\s*["']?)[A-Za-z0-9._~+/=-]{8,}/gi,
  prefilter: /key|token|secret|passw|密钥|秘钥|令牌|口令|密码/i,
};

export const residentIdPattern: SensitivePattern = {
  name: "id_card",
  pattern: /(?<!\d)[1-9]\d{16}[\dXx](?![\dXx])/g,
  validate: isChineseResidentId,
  prefilter: LONG_NUMBER,
};

export const bankCardPattern: SensitivePattern = {
  name: "bank_card",
  // 13–19 digits, written solid or in groups separated by spaces or dashes.
  pattern: /(?<![\d-])(?:\d{4}(?:[ -]\d{4}){2,3}(?:[ -]\d{1,4})?|\d{4}[ -]\d{6}[ -]\d{4,5}|\d{13,19})(?![\d-])/g,
  validate: (match) => {
    const digits = match.replace(/[ -]/g, "");
    return digits.length >= 13 && digits.length <= 19 && passesLuhn(digits);
  },
  prefilter: LONG_NUMBER,
};

export const mobilePhonePattern: SensitivePattern = {
  name: "phone",
  // Mainland China mobile numbers: 1, then 3–9, then nine digits; an optional
  // +86 / 0086 / 86 prefix and 3-4-4 grouping with spaces or dashes.
  pattern: /(?<![\d+])(?:(?:\+|00)?86[ -]?)?1[3-9]\d(?:[ -]?\d{4}){2}(?![\d])/g,
  prefilter: LONG_NUMBER,
};

export const emailPattern: SensitivePattern = {
  name: "email",
  pattern: /(?<![A-Za-z0-9._%+-])[A-Za-z0-9._%+-]+@[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)*\.[A-Za-z]{2,}(?![A-Za-z0-9-])/g,
  prefilter: /@/,
};

/**
 * In priority order: when two candidates overlap, the one from the earlier
 * pattern wins (an 18-digit resident id that also passes Luhn is an id card).
 */
export const defaultSensitivePatterns: readonly SensitivePattern[] = [
  privateKeyPattern,
  apiKeyPattern,
  secretAssignmentPattern,
  residentIdPattern,
  bankCardPattern,
  mobilePhonePattern,
  emailPattern,
];
