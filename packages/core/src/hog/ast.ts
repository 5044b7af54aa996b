// The parts of the grammar parser's JSON AST that Hog programs use. The parser is trusted, so nodes
// are read by their `node` kind rather than decoded; kinds the compiler does not know are refused.

export interface Position {
  readonly line: number
  readonly column: number
  readonly offset: number
}

export interface HogNode {
  readonly node: string
  readonly start?: Position
  readonly end?: Position
}

export interface Constant extends HogNode {
  readonly value: string | number | boolean | null
}
export interface Field extends HogNode {
  readonly chain: ReadonlyArray<string | number>
}
export interface ArrayAccess extends HogNode {
  readonly array: HogNode
  readonly property: HogNode
  readonly nullish?: boolean
}
export interface TupleAccess extends HogNode {
  readonly tuple: HogNode
  readonly index: number
  readonly nullish?: boolean
}
export interface Operation extends HogNode {
  readonly left: HogNode
  readonly right: HogNode
  readonly op: string
}
export interface Exprs extends HogNode {
  readonly exprs: ReadonlyArray<HogNode>
}
export interface Not extends HogNode {
  readonly expr: HogNode
}
export interface Dict extends HogNode {
  readonly items: ReadonlyArray<readonly [HogNode, HogNode]>
}
export interface Call extends HogNode {
  readonly name: string
  readonly args: ReadonlyArray<HogNode>
  readonly params?: ReadonlyArray<HogNode> | null
  readonly distinct?: boolean
}
export interface Lambda extends HogNode {
  readonly args: ReadonlyArray<string>
  readonly expr: HogNode
}

export interface Program extends HogNode {
  readonly declarations: ReadonlyArray<HogNode>
}
export type Block = Program
export interface VariableDeclaration extends HogNode {
  readonly name: string
  readonly expr: HogNode | null
}
export interface VariableAssignment extends HogNode {
  readonly left: HogNode
  readonly right: HogNode
}
export interface ExprStatement extends HogNode {
  readonly expr: HogNode | null
}
export type ReturnStatement = ExprStatement
export type ThrowStatement = ExprStatement
export interface IfStatement extends HogNode {
  readonly expr: HogNode
  readonly then: HogNode
  readonly else_: HogNode | null
}
export interface WhileStatement extends HogNode {
  readonly expr: HogNode
  readonly body: HogNode
}
export interface ForStatement extends HogNode {
  readonly initializer: HogNode | null
  readonly condition: HogNode | null
  readonly increment: HogNode | null
  readonly body: HogNode
}
export interface ForInStatement extends HogNode {
  readonly keyVar: string | null
  readonly valueVar: string
  readonly expr: HogNode
  readonly body: HogNode
}
export interface FunctionDeclaration extends HogNode {
  readonly name: string
  readonly params: ReadonlyArray<string>
  readonly body: HogNode
}
/** One `catch (name: Type) { … }`; name and type are optional. */
export type CatchClause = readonly [string | null, string | null, HogNode]
export interface TryCatchStatement extends HogNode {
  readonly try_stmt: HogNode
  readonly catches: ReadonlyArray<CatchClause>
  readonly finally_stmt: HogNode | null
}

/** The parser's report of a syntax error, in place of an AST. */
export interface ParserError {
  readonly error: true
  readonly type: string
  readonly message: string
  readonly start?: Position
  readonly end?: Position
}

export const isParserError = (value: unknown): value is ParserError =>
  typeof value === "object" && value !== null && (value as { error?: unknown }).error === true
