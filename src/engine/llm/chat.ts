/** Placeholder of the model client's interface, replaced by the client itself. */
export interface LlmSettings { baseUrl: string; model: string; apiKey?: string; timeoutMs?: number }
export interface ChatTool { name: string; description: string; parameters: Record<string, unknown> }
export interface ChatToolCall { id: string; name: string; arguments: string }
export type ChatMessage =
  | { role: 'system' | 'user'; content: string }
  | { role: 'assistant'; content: string | null; toolCalls?: ChatToolCall[] }
  | { role: 'tool'; toolCallId: string; content: string };
export interface ChatRequest { messages: ChatMessage[]; tools?: ChatTool[]; json?: boolean; temperature?: number; signal?: AbortSignal; timeoutMs?: number }
export interface ChatReply { content: string | null; toolCalls: ChatToolCall[]; finishReason: string; usage: { promptTokens: number; completionTokens: number } | null }
export interface ChatModel { readonly model: string; chat(request: ChatRequest): Promise<ChatReply> }
export async function chatModel(_settings: LlmSettings): Promise<ChatModel> {
  throw new Error('not built yet');
}
