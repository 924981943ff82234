/**
 * Sensitive data detectors (seed 004 §八.3 敏感信息: 身份证号, 手机号, 银行账户,
 * 密钥和 Token), pure functions shared by the SDK's client-side redaction and
 * the collector's answer check (evaluators/online/), which may import only
 * contracts/.
 *
 * What is found, in this order (a later kind never reads characters an
 * earlier kind already took, so an ID number is not also a bank card):
 * 1. private keys: a PEM block `-----BEGIN … PRIVATE KEY-----` (to its END line
 *    when present);
 * 2. API keys and tokens: well-known prefixes (OpenAI `sk-`, GitHub `ghp_` and
 *    `github_pat_`, AWS `AKIA`/`ASIA`, Slack `xox?-`, Google `AIza`, Stripe
 *    `sk_live_`), JSON Web Tokens, `Bearer …` headers, and assignments such as
 *    `api_key = …`, `secret: …`, `password=…` with a value of 8+ characters;
 * 3. e-mail addresses;
 * 4. Chinese resident identity numbers (GB 11643-1999): 17 digits and a check
 *    character (ISO 7064 MOD 11-2), a real birth date in digits 7-14;
 * 5. bank card numbers: 13 to 19 digits, optionally grouped by spaces or
 *    hyphens, passing the Luhn check (ISO/IEC 7812);
 * 6. mainland China mobile numbers: 1[3-9] and 9 more digits, optionally with
 *    +86 / 0086 and 3-4-4 grouping.
 * Digit runs glued to other digits or letters are not numbers of any kind
 * ("order 123456789012345678" inside a longer id is left alone).
 *
 * Detection runs on the NFKC form of the text (full-width digits become ASCII);
 * offsets refer to that form.
 */

export type SensitiveDataKind = "private_key" | "api_key" | "email" | "resident_id" | "bank_card" | "mobile_number";

export interface SensitiveDataFinding {
  kind: SensitiveDataKind;
  /** Offsets in the NFKC-normalised text. */
  start: number;
  end: number;
  /** The matched text as written (after NFKC). */
  text: string;
  /** Shown instead of the value in reasons and logs: keeps a few characters at the ends. */
  masked: string;
}

const RESIDENT_ID_WEIGHTS = [7, 9, 10, 5, 8, 4, 2, 1, 6, 3, 7, 9, 10, 5, 8, 4, 2];
const RESIDENT_ID_CHECK = "10X98765432";

/** GB 11643-1999: 18 characters, a valid birth date, and the MOD 11-2 check character. */
export function isValidResidentIdNumber(candidate: string): boolean {
  const id = candidate.toUpperCase();
  if (!/^[1-9]\d{16}[\dX]$/.test(id)) return false;
  const year = Number(id.slice(6, 10));
  const month = Number(id.slice(10, 12));
  const day = Number(id.slice(12, 14));
  if (year < 1900 || year > 2100 || month < 1 || month > 12 || day < 1) return false;
  const birth = new Date(Date.UTC(year, month - 1, day));
  if (birth.getUTCMonth() !== month - 1 || birth.getUTCDate() !== day) return false;
  let sum = 0;
  for (let index = 0; index < 17; index += 1) sum += Number(id[index]) * RESIDENT_ID_WEIGHTS[index]!;
  return RESIDENT_ID_CHECK[sum % 11] === id[17];
}

/** The Luhn (mod 10) check of ISO/IEC 7812 over a string of digits. */
export function passesLuhnCheck(digits: string): boolean {
  if (!/^\d+$/.test(digits)) return false;
  let sum = 0;
  let double = false;
  for (let index = digits.length - 1; index >= 0; index -= 1) {
    let digit = Number(digits[index]);
    if (double) {
      digit *= 2;
      if (digit > 9) digit -= 9;
    }
    sum += digit;
    double = !double;
  }
  return sum % 10 === 0;
}

/** Keeps up to 3 characters at each end when the value is long enough to stay unrecognisable. */
export function maskSensitiveValue(value: string): string {
  const compact = value.replace(/\s+/g, " ");
  if (compact.length <= 8) return "*".repeat(compact.length);
  const keep = compact.length >= 16 ? 3 : 2;
  return `${compact.slice(0, keep)}${"*".repeat(compact.length - 2 * keep)}${compact.slice(-keep)}`;
}

interface Detector {
  kind: SensitiveDataKind;
  pattern: RegExp;
  /** Extra check on the match (checksums); absent: every match counts. */
  accept?: (match: RegExpExecArray) => boolean;
}

const digitsOnly = (text: string) => text.replace(/\D/g, "");

const DETECTORS: readonly Detector[] = [
  { kind: "private_key", pattern: /-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY-----(?:[\s\S]*?-----END (?:[A-Z0-9]+ )*PRIVATE KEY-----)?/g },
  {
    kind: "api_key",
    pattern: new RegExp(
      [
        String.raw`(?<![A-Za-z0-9_-])sk-(?:proj-|ant-)?[A-Za-z0-9_-]{20,}`,
        String.raw`(?<![A-Za-z0-9_])gh[pousr]_[A-Za-z0-9]{30,}`,
        String.raw`(?<![A-Za-z0-9_])github_pat_[A-Za-z0-9_]{22,}`,
        String.raw`(?<![A-Za-z0-9])(?:AKIA|ASIA)[0-9A-Z]{16}(?![A-Za-z0-9])`,
        String.raw`(?<![A-Za-z0-9])xox[abprs]-[A-Za-z0-9-]{10,}`,
        String.raw`(?<![A-Za-z0-9])AIza[0-9A-Za-z_-]{35}`,
        String.raw`(?<![A-Za-z0-9])[sr]k_(?:live|test)_[0-9A-Za-z]{16,}`,
        String.raw`(?<![A-Za-z0-9_-])eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}`,
        String.raw`\bBearer\s+[A-Za-z0-9._~+/-]{16,}=*`,
        String.raw`(?<![A-Za-z0-9])(?:api[_-]?key|api[_-]?secret|access[_-]?key|secret[_-]?key|client[_-]?secret|auth[_-]?token|access[_-]?token|secret|token|password|passwd|pwd|密码|密钥|口令)["']?\s*[:=：]\s*["']?[A-Za-z0-9._~+/!@#$%^&*-]{8,}`,
      ].join("|"),
      "gi",
    ),
  },
  { kind: "email", pattern: /(?<![A-Za-z0-9._%+-])[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}(?![A-Za-z0-9-])/g },
  { kind: "resident_id", pattern: /(?<![A-Za-z0-9])[1-9]\d{16}[\dXx](?![A-Za-z0-9])/g, accept: (match) => isValidResidentIdNumber(match[0]) },
  {
    kind: "bank_card",
    pattern: /(?<![A-Za-z0-9])(?:\d{4}[ -]){2,3}\d{4}(?:[ -]?\d{1,3})?(?![A-Za-z0-9])|(?<![A-Za-z0-9])\d{13,19}(?![A-Za-z0-9])/g,
    accept: (match) => {
      const digits = digitsOnly(match[0]);
      return digits.length >= 13 && digits.length <= 19 && passesLuhnCheck(digits);
    },
  },
  { kind: "mobile_number", pattern: /(?<![A-Za-z0-9+])(?:(?:\+|00)86[ -]?)?1[3-9]\d(?:[ -]?\d{4}){2}(?![A-Za-z0-9])/g },
];

/** Every sensitive value in the text, in text order. */
export function findSensitiveData(text: string): SensitiveDataFinding[] {
  let rest = text.normalize("NFKC");
  const findings: SensitiveDataFinding[] = [];
  for (const detector of DETECTORS) {
    const scanned = rest;
    for (const match of scanned.matchAll(detector.pattern)) {
      if (detector.accept && !detector.accept(match as RegExpExecArray)) continue;
      const start = match.index;
      const end = start + match[0].length;
      findings.push({ kind: detector.kind, start, end, text: match[0], masked: maskSensitiveValue(match[0]) });
      // Blank what was found (keeping offsets) so the next detectors do not read it again.
      rest = rest.slice(0, start) + " ".repeat(end - start) + rest.slice(end);
    }
  }
  return findings.sort((first, second) => first.start - second.start);
}

/** Whether the text holds any sensitive value. */
export function containsSensitiveData(text: string): boolean {
  return findSensitiveData(text).length > 0;
}

/** The NFKC text with every finding replaced by `[REDACTED:<kind>]`, and the findings. */
export function redactSensitiveData(text: string): { text: string; findings: SensitiveDataFinding[] } {
  const normalized = text.normalize("NFKC");
  const findings = findSensitiveData(normalized);
  let redacted = "";
  let cursor = 0;
  for (const finding of findings) {
    redacted += normalized.slice(cursor, finding.start) + `[REDACTED:${finding.kind}]`;
    cursor = finding.end;
  }
  return { text: redacted + normalized.slice(cursor), findings };
}

/** The value's identity for comparisons across texts: digits for numbers, lower case otherwise. */
export function sensitiveValueKey(finding: Pick<SensitiveDataFinding, "kind" | "text">): string {
  switch (finding.kind) {
    case "resident_id":
      return `${finding.kind}:${finding.text.toUpperCase()}`;
    case "bank_card":
      return `${finding.kind}:${digitsOnly(finding.text)}`;
    case "mobile_number":
      return `${finding.kind}:${digitsOnly(finding.text).slice(-11)}`;
    default:
      return `${finding.kind}:${finding.text.trim().toLowerCase()}`;
  }
}
