/**
 * sacrebleu's default "13a" tokenizer (the mteval-v13a.pl rules), for BLEU
 * values comparable with sacrebleu and ragas' BleuScore. Case is kept, and
 * punctuation becomes tokens: "Paris." → ["Paris", "."].
 *
 * The rules, applied in order to " line ":
 * 1. drop "<skipped>" and "-\n", turn newlines into spaces, unescape
 *    &quot; &amp; &lt; &gt;;
 * 2. surround with spaces every ASCII symbol in { | } ~ [ \ ] ^ _ ` space
 *    ! " # $ % & ( ) * + : ; < = > ? @ /;
 * 3. split "." and "," off a preceding non-digit, and off a following
 *    non-digit (so "3.5" and "1,000" stay whole);
 * 4. split "-" off a preceding digit;
 * 5. split on white space.
 * It does not split CJK text: use the ragscope tokenizer for Chinese.
 */

const SYMBOL = /([\x7B-\x7E\x5B-\x60\x20-\x26\x28-\x2B\x3A-\x40\x2F])/g;
const PERIOD_OR_COMMA_AFTER_NON_DIGIT = /([^0-9])([.,])/g;
const PERIOD_OR_COMMA_BEFORE_NON_DIGIT = /([.,])([^0-9])/g;
const DASH_AFTER_DIGIT = /([0-9])(-)/g;

export function tokenize13a(text: string): string[] {
  let line = text.replaceAll("<skipped>", "").replaceAll("-\n", "").replaceAll("\n", " ");
  if (line.includes("&")) line = line.replaceAll("&quot;", '"').replaceAll("&amp;", "&").replaceAll("&lt;", "<").replaceAll("&gt;", ">");
  line = ` ${line} `
    .replace(SYMBOL, " $1 ")
    .replace(PERIOD_OR_COMMA_AFTER_NON_DIGIT, "$1 $2 ")
    .replace(PERIOD_OR_COMMA_BEFORE_NON_DIGIT, " $1 $2")
    .replace(DASH_AFTER_DIGIT, "$1 $2 ");
  return line.split(/\s+/).filter((token) => token !== "");
}
