/**
 * The default sensitive-data patterns: the seed's list (004 §八.3, "敏感信息":
 * 身份证号, 手机号, 银行账户, 密钥和 Token) plus e-mail addresses and private
 * keys, in priority order.
 *
 * The patterns live in core/sensitive-data.ts, so that what the SDK
 * redacts and what the collector flags in answers (evaluators/online/) is one
 * list; this module keeps the SDK's import path.
 */
export {
  apiKeyPattern,
  bankCardPattern,
  defaultSensitivePatterns,
  emailPattern,
  mobilePhonePattern,
  privateKeyPattern,
  residentIdPattern,
  secretAssignmentPattern,
  type SensitivePattern,
} from "../../core/sensitive-data.js";
