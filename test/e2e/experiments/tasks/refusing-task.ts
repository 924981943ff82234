/** A task that turns every question down, in the words of a refusal the seed asks for (004 §五.6: 明确说明当前资料不足). */
export default async function refusingTask(): Promise<string> {
  return "抱歉，资料中没有相关信息，无法回答这个问题。";
}
