/**
 * Sensitive data detection, shared by the SDK's client-side redaction
 * (instrumentation/redaction/, which re-exports these) and the collector's
 * answer checks (evaluators/online/), both of which may import core/: one
 * list of patterns, so what the SDK redacts and what the evaluator flags
 * cannot drift apart.
 *
 * The seed's list (004 §八.3, "敏感信息": 身份证号, 手机号, 银行账户, 密钥和
 * Token) plus e-mail addresses and private keys. Numbers count only when their
 * check digits hold, so look-alikes — order numbers, timestamps, amounts —
 * do not.
 *
 * Boundaries are written as "no digit (or word character) next to the match"
 * rather than `\b`, because Chinese text puts digits right against characters
 * (`身份证号110101…，`) where a word boundary is not what one expects.
 */

/** ISO 7064 MOD 11-2 weights of the first 17 digits (GB 11643-1999 §8.2). */
const RESIDENT_ID_WEIGHTS = [7, 9, 10, 5, 8, 4, 2, 1, 6, 3, 7, 9, 10, 5, 8, 4, 2] as const;
const RESIDENT_ID_CHECK_CHARACTERS = "10X98765432";

/**
 * A Chinese citizen identity number (GB 11643-1999): 18 characters — a 6-digit
 * region code whose first digit is a province (1–9), a birth date YYYYMMDD that
 * exists, a 3-digit sequence and a check character (0–9 or X) over the first 17.
 */
export function isChineseResidentId(value: string): boolean {
  if (!/^[1-9]\d{16}[\dXx]$/.test(value)) return false;
  if (!isCalendarDate(Number(value.slice(6, 10)), Number(value.slice(10, 12)), Number(value.slice(12, 14)))) return false;
  let sum = 0;
  for (let index = 0; index < 17; index += 1) sum += Number(value[index]) * RESIDENT_ID_WEIGHTS[index]!;
  return RESIDENT_ID_CHECK_CHARACTERS[sum % 11] === value[17]!.toUpperCase();
}

function isCalendarDate(year: number, month: number, day: number): boolean {
  if (year < 1900 || month < 1 || month > 12 || day < 1) return false;
  const date = new Date(Date.UTC(year, month - 1, day));
  return date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
}

/** The Luhn (mod 10) check used by payment card numbers (ISO/IEC 7812-1 Annex B). */
export function passesLuhn(digits: string): boolean {
  if (!/^\d+$/.test(digits)) return false;
  let sum = 0;
  let double = false;
  for (let index = digits.length - 1; index >= 0; index -= 1) {
    let digit = digits.charCodeAt(index) - 48;
    if (double) {
      digit *= 2;
      if (digit > 9) digit -= 9;
    }
    sum += digit;
    double = !double;
  }
  return sum % 10 === 0;
}

export interface SensitivePattern {
  /** Short name, written into the SDK's replacement: `[REDACTED:<name>]`. */
  readonly name: string;
  /** Must have the global flag; every match is a candidate. */
  readonly pattern: RegExp;
  /** A candidate counts only when this accepts it (check digits, length). */
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
  // truncated attribute) is matched up to the end of its base64 body.
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

export interface SensitiveDataFinding {
  /** The pattern's name: private_key, api_key, secret, id_card, bank_card, phone, email. */
  kind: string;
  /** Offsets in the NFKC form of the text. */
  start: number;
  end: number;
  /** The matched value (NFKC). */
  text: string;
  /** Shown instead of the value in reasons and logs: a few characters kept at the ends. */
  masked: string;
}

/** Where a pattern matched: offsets in the text searched, and the pattern's index (its priority). */
export interface SensitiveCandidate {
  start: number;
  end: number;
  priority: number;
}

/**
 * Every pattern's matches in `source` that pass its check, overlaps resolved by pattern priority (the earlier
 * pattern wins), in text order: the one search behind both the answer's check (findSensitiveData) and the SDK's
 * redaction (instrumentation/redaction/redactor.ts), so what one flags the other replaces. The patterns have the
 * global flag; each search starts at 0.
 */
export function sensitiveCandidates(source: string, patterns: readonly SensitivePattern[]): SensitiveCandidate[] {
  const candidates: SensitiveCandidate[] = [];
  patterns.forEach(({ pattern, validate, prefilter }, priority) => {
    if (prefilter !== undefined && !prefilter.test(source)) return;
    // The pattern's own exec: matchAll clones the pattern and makes an iterator per call.
    pattern.lastIndex = 0;
    for (let match = pattern.exec(source); match !== null; match = pattern.exec(source)) {
      if (match[0].length === 0) {
        pattern.lastIndex += 1;
        continue;
      }
      if (validate === undefined || validate(match[0])) candidates.push({ start: match.index, end: match.index + match[0].length, priority });
    }
  });
  candidates.sort((left, right) => left.priority - right.priority || left.start - right.start);
  const chosen: SensitiveCandidate[] = [];
  for (const candidate of candidates) if (!chosen.some((taken) => candidate.start < taken.end && taken.start < candidate.end)) chosen.push(candidate);
  return chosen.sort((left, right) => left.start - right.start);
}

/**
 * Every sensitive value in the text, in text order. The text is read in its
 * NFKC form (full-width digits become ASCII); overlapping candidates are
 * resolved by pattern priority, as the SDK's redactor does.
 */
export function findSensitiveData(text: string, patterns: readonly SensitivePattern[] = defaultSensitivePatterns): SensitiveDataFinding[] {
  const normalized = text.normalize("NFKC");
  return sensitiveCandidates(normalized, patterns).map(({ start, end, priority }) => {
    const value = normalized.slice(start, end);
    return { kind: patterns[priority]!.name, start, end, text: value, masked: maskSensitiveValue(value) };
  });
}

/** Keeps 2–3 characters at each end when the value is long enough to stay unrecognisable. */
export function maskSensitiveValue(value: string): string {
  const compact = value.replace(/\s+/g, " ");
  if (compact.length <= 8) return "*".repeat(compact.length);
  const keep = compact.length >= 16 ? 3 : 2;
  return `${compact.slice(0, keep)}${"*".repeat(compact.length - 2 * keep)}${compact.slice(-keep)}`;
}

/** A value's identity across texts (138 1234 5678 = +86 13812345678): digits for numbers, lower case otherwise. */
export function sensitiveValueKey(finding: Pick<SensitiveDataFinding, "kind" | "text">): string {
  const digits = finding.text.replace(/\D/g, "");
  switch (finding.kind) {
    case "id_card":
      return `${finding.kind}:${finding.text.toUpperCase()}`;
    case "bank_card":
      return `${finding.kind}:${digits}`;
    case "phone":
      return `${finding.kind}:${digits.slice(-11)}`;
    default:
      return `${finding.kind}:${finding.text.trim().toLowerCase()}`;
  }
}

/** A value the SDK's redaction replaced (instrumentation/redaction/redactor.ts): `[REDACTED:<kind>]`, or `[REDACTED:<kind>:<hmac>]` in hash mode. */
export interface RedactionMarker {
  kind: string;
  /** The keyed hash of the value (hash mode), equal for equal values under one key; null under `replace`. */
  digest: string | null;
  text: string;
}

const REDACTION_MARKER = /\[REDACTED:([a-z_]+)(?::([0-9a-f]{16}))?\]/g;
const DEFAULT_KINDS: ReadonlySet<string> = new Set(defaultSensitivePatterns.map((pattern) => pattern.name));

/**
 * The SDK's replacements of the default patterns' values in a text: each
 * stands for a sensitive value that was there before export. Names of other
 * patterns (an application's own) are not read: what they replace is the
 * application's to say.
 */
export function findRedactionMarkers(text: string): RedactionMarker[] {
  if (!text.includes("[REDACTED:")) return [];
  return [...text.matchAll(REDACTION_MARKER)].filter((match) => DEFAULT_KINDS.has(match[1]!)).map((match) => ({ kind: match[1]!, digest: match[2] ?? null, text: match[0] }));
}
