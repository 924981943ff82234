import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { findAbstentionPhrase } from "../../../../evaluators/text/abstention-phrases.js";

describe("findAbstentionPhrase", () => {
  test("Chinese refusals", () => {
    assert.equal(findAbstentionPhrase("抱歉，现有资料不足以回答这个问题。"), "资料不足");
    assert.equal(findAbstentionPhrase("很抱歉，我无法回答这个问题"), "无法回答");
    assert.equal(findAbstentionPhrase("没有找到相关的规定，建议联系人工客服"), "没有找到相关");
  });

  test("English refusals, with case, apostrophes and full-width forms normalised", () => {
    assert.equal(findAbstentionPhrase("Sorry, I DON'T KNOW."), "I don't know");
    assert.equal(findAbstentionPhrase("The documents do not say whether gift wrapping is offered."), "the documents do not");
    assert.equal(findAbstentionPhrase("There is not enough information to answer."), "not enough information");
    assert.equal(findAbstentionPhrase("Ｉ　ｃａｎｎｏｔ　ａｎｓｗｅｒ that"), "cannot answer");
    // A statement that the sources hold nothing, naming them, is a refusal on its own (not a claim of the answer's).
    assert.equal(findAbstentionPhrase("The documents contain no such information."), "documents contain no");
    assert.equal(findAbstentionPhrase("The provided context contains no details about gift wrapping."), "context contains no");
    // The speaker saying what they lack, the commonest model refusal.
    assert.equal(findAbstentionPhrase("Sorry, I don't have enough information to answer that."), "I don't have enough information");
    assert.equal(findAbstentionPhrase("I do not have the information needed."), "I do not have the information");
  });

  test("apologies and negations inside real answers are not refusals", () => {
    assert.equal(findAbstentionPhrase("抱歉给您带来不便，退款将在3天内到账"), null);
    assert.equal(findAbstentionPhrase("这个商品不能退款"), null);
    assert.equal(findAbstentionPhrase("如果没有找到订单，请联系客服"), null);
    assert.equal(findAbstentionPhrase("If you can't find the receipt, contact support."), null);
    assert.equal(findAbstentionPhrase("Sorry for the delay: unopened items can be returned within 30 days."), null);
    assert.equal(findAbstentionPhrase("If you don't have the information at hand, call support."), null);
  });

  test("empty text has no phrase", () => {
    assert.equal(findAbstentionPhrase(""), null);
    assert.equal(findAbstentionPhrase("。。"), null);
  });
});
