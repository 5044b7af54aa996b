import type * as Ast from "./ast.js"
import { Op } from "./opcodes.js"

// Compiles the parser's AST to HogVM instructions. The VM keeps a function's locals on its stack,
// from the frame's start: arguments first, then `let`s in order of declaration. Every statement
// leaves the stack as it found it, except a declaration, which leaves its value as the new local.
// Binary instructions take their left operand from the top of the stack, so the right one is
// pushed first. Jumps are relative to the instruction after the jump.

type Ops = Array<unknown>

/** Thrown inside the compiler and turned into a `HogCompileError` at its boundary. */
export class Unsupported {
  constructor(
    readonly message: string,
    readonly node: Ast.HogNode | undefined
  ) {}
}

interface Local {
  readonly name: string
  readonly depth: number
  /** A closure refers to it: leaving its scope must move it off the stack (CLOSE_UPVALUE), not drop it. */
  captured: boolean
}

interface Upvalue {
  /** true: a local of the enclosing function; false: one of the enclosing function's own upvalues. */
  readonly isLocal: boolean
  readonly index: number
}

class FunctionScope {
  readonly locals: Array<Local> = []
  readonly upvalues: Array<Upvalue> = []
  depth = 0
  /** `try` blocks open at this point of the function: a `return` must pop their handlers first. */
  tries = 0
  constructor(readonly parent: FunctionScope | null) {}
}

const ARITHMETIC: Record<string, number> = {
  "+": Op.PLUS,
  "-": Op.MINUS,
  "*": Op.MULTIPLY,
  "/": Op.DIVIDE,
  "%": Op.MOD
}

const COMPARISON: Record<string, number> = {
  "==": Op.EQ,
  "!=": Op.NOT_EQ,
  ">": Op.GT,
  ">=": Op.GT_EQ,
  "<": Op.LT,
  "<=": Op.LT_EQ,
  like: Op.LIKE,
  ilike: Op.ILIKE,
  "not like": Op.NOT_LIKE,
  "not ilike": Op.NOT_ILIKE,
  in: Op.IN,
  "not in": Op.NOT_IN,
  "=~": Op.REGEX,
  "!~": Op.NOT_REGEX,
  "=~*": Op.IREGEX,
  "!~*": Op.NOT_IREGEX
}

/** Names the grammar reads as plain fields; Hog has no such statements. */
const NOT_STATEMENTS = new Set(["break", "continue"])

const resolveLocal = (fn: FunctionScope, name: string) => {
  for (let i = fn.locals.length - 1; i >= 0; i--) if (fn.locals[i]!.name === name) return i
  return -1
}

const addUpvalue = (fn: FunctionScope, isLocal: boolean, index: number) => {
  const known = fn.upvalues.findIndex((u) => u.isLocal === isLocal && u.index === index)
  if (known >= 0) return known
  fn.upvalues.push({ isLocal, index })
  return fn.upvalues.length - 1
}

const resolveUpvalue = (fn: FunctionScope, name: string): number => {
  if (fn.parent === null) return -1
  const local = resolveLocal(fn.parent, name)
  if (local >= 0) {
    fn.parent.locals[local]!.captured = true
    return addUpvalue(fn, true, local)
  }
  const outer = resolveUpvalue(fn.parent, name)
  return outer >= 0 ? addUpvalue(fn, false, outer) : -1
}

const constant = (value: Ast.Constant["value"]): Ops => {
  if (value === null) return [Op.NULL]
  if (value === true) return [Op.TRUE]
  if (value === false) return [Op.FALSE]
  if (typeof value === "string") return [Op.STRING, value]
  return [Number.isInteger(value) ? Op.INTEGER : Op.FLOAT, value]
}

const key = (k: string | number): Ops => (typeof k === "number" ? [Op.INTEGER, k] : [Op.STRING, k])

const jumpOver = (skipped: Ops): Ops => [Op.JUMP, skipped.length]
/** `if c then a else b`, each branch already compiled. */
const branch = (condition: Ops, then: Ops, otherwise: Ops): Ops => {
  const thenPart = [...then, ...jumpOver(otherwise)]
  return [...condition, Op.JUMP_IF_FALSE, thenPart.length, ...thenPart, ...otherwise]
}
/** While `condition` holds, runs `body`, then jumps back to the condition. */
const loop = (condition: Ops, body: Ops): Ops => {
  const pass = [...condition, Op.JUMP_IF_FALSE, body.length + 2, ...body]
  return [...pass, Op.JUMP, -(pass.length + 2)]
}

export class Compiler {
  private fn = new FunctionScope(null)

  /** A whole program: its statements, then `return null` so leftover locals are not its result. */
  program(node: Ast.HogNode): Ops {
    return [...this.statements(this.as<Ast.Program>(node, "Program").declarations), Op.NULL, Op.RETURN]
  }

  expression(node: Ast.HogNode): Ops {
    switch (node.node) {
      case "Constant":
        return constant((node as Ast.Constant).value)
      case "Field":
        return this.field(node as Ast.Field)
      case "ArrayAccess": {
        const n = node as Ast.ArrayAccess
        return [
          ...this.expression(n.array),
          ...this.expression(n.property),
          n.nullish ? Op.GET_PROPERTY_NULLISH : Op.GET_PROPERTY
        ]
      }
      case "TupleAccess": {
        const n = node as Ast.TupleAccess
        return [...this.expression(n.tuple), Op.INTEGER, n.index, n.nullish ? Op.GET_PROPERTY_NULLISH : Op.GET_PROPERTY]
      }
      case "ArithmeticOperation":
        return this.binary(node as Ast.Operation, ARITHMETIC)
      case "CompareOperation":
        return this.binary(node as Ast.Operation, COMPARISON)
      case "And":
        return this.and((node as Ast.Exprs).exprs)
      case "Or":
        return this.or((node as Ast.Exprs).exprs)
      case "Not":
        return [...this.expression((node as Ast.Not).expr), Op.NOT]
      case "Array":
        return this.collection((node as Ast.Exprs).exprs, Op.ARRAY)
      case "Tuple":
        return this.collection((node as Ast.Exprs).exprs, Op.TUPLE)
      case "Dict": {
        const items = (node as Ast.Dict).items
        return [...items.flatMap(([k, v]) => [...this.expression(k), ...this.expression(v)]), Op.DICT, items.length]
      }
      case "Call":
        return this.call(node as Ast.Call)
      case "Lambda": {
        const n = node as Ast.Lambda
        return this.function("lambda", n.args, n.expr, n)
      }
      default:
        throw new Unsupported(`Unsupported expression: ${node.node}`, node)
    }
  }

  private statements(nodes: ReadonlyArray<Ast.HogNode>): Ops {
    return nodes.flatMap((n) => this.statement(n))
  }

  private statement(node: Ast.HogNode): Ops {
    switch (node.node) {
      case "ExprStatement": {
        const expr = (node as Ast.ExprStatement).expr
        if (expr === null) return []
        this.refuseNonStatement(expr)
        return [...this.expression(expr), Op.POP]
      }
      case "VariableDeclaration": {
        const n = node as Ast.VariableDeclaration
        // The value is compiled before the name exists, so `let x := x + 1` reads an outer x.
        const value = n.expr === null ? [Op.NULL] : this.expression(n.expr)
        this.declare(n.name, n)
        return value
      }
      case "VariableAssignment":
        return this.assignment(node as Ast.VariableAssignment)
      case "Block":
        return this.scoped(() => this.statements((node as Ast.Block).declarations))
      case "ReturnStatement": {
        const expr = (node as Ast.ReturnStatement).expr
        const value = expr === null ? [Op.NULL] : this.expression(expr)
        return [...value, ...Array<unknown>(this.fn.tries).fill(Op.POP_TRY), Op.RETURN]
      }
      case "ThrowStatement": {
        const expr = (node as Ast.ThrowStatement).expr
        if (expr === null) throw new Unsupported("throw needs an error", node)
        return [...this.expression(expr), Op.THROW]
      }
      case "IfStatement": {
        const n = node as Ast.IfStatement
        const condition = this.expression(n.expr)
        const then = this.body(n.then)
        return branch(condition, then, n.else_ === null ? [] : this.body(n.else_))
      }
      case "WhileStatement": {
        const n = node as Ast.WhileStatement
        const condition = this.expression(n.expr)
        const body = this.body(n.body)
        return loop(condition, body)
      }
      case "ForStatement":
        return this.forLoop(node as Ast.ForStatement)
      case "ForInStatement":
        return this.forIn(node as Ast.ForInStatement)
      case "Function": {
        const n = node as Ast.FunctionDeclaration
        // Declared before its body compiles, so the body can call itself (through an upvalue).
        this.declare(n.name, n)
        return this.function(n.name, n.params, n.body, n)
      }
      case "TryCatchStatement":
        return this.tryCatch(node as Ast.TryCatchStatement)
      default:
        throw new Unsupported(`Unsupported statement: ${node.node}`, node)
    }
  }

  // Variables

  private declare(name: string, node: Ast.HogNode) {
    const fn = this.fn
    if (fn.locals.some((l) => l.name === name && l.depth === fn.depth)) {
      throw new Unsupported(`Variable \`${name}\` is already declared in this scope`, node)
    }
    fn.locals.push({ name, depth: fn.depth, captured: false })
  }

  /** Instructions that push a local or upvalue named `name`; null for a global. */
  private load(name: string): Ops | null {
    const local = resolveLocal(this.fn, name)
    if (local >= 0) return [Op.GET_LOCAL, local]
    const upvalue = resolveUpvalue(this.fn, name)
    return upvalue >= 0 ? [Op.GET_UPVALUE, upvalue] : null
  }

  private field(node: Ast.Field): Ops {
    const [name, ...path] = node.chain
    if (name === undefined) throw new Unsupported("Empty field", node)
    const variable = this.load(String(name))
    if (variable !== null) return [...variable, ...path.flatMap((k) => [...key(k), Op.GET_PROPERTY])]
    // Globals are read whole-chain: the VM walks the path (null where it ends) in one step.
    return [...[...node.chain].reverse().flatMap(key), Op.GET_GLOBAL, node.chain.length]
  }

  private assignment(node: Ast.VariableAssignment): Ops {
    const left = node.left
    if (left.node === "Field") {
      const [name, ...path] = (left as Ast.Field).chain
      if (path.length === 0) {
        const value = this.expression(node.right)
        const local = resolveLocal(this.fn, String(name))
        if (local >= 0) return [...value, Op.SET_LOCAL, local]
        const upvalue = resolveUpvalue(this.fn, String(name))
        if (upvalue >= 0) return [...value, Op.SET_UPVALUE, upvalue]
        throw this.notAssignable(left)
      }
      this.assignableRoot(left)
      const target = this.field({ ...(left as Ast.Field), chain: [name!, ...path.slice(0, -1)] })
      return [...target, ...key(path[path.length - 1]!), ...this.expression(node.right), Op.SET_PROPERTY]
    }
    if (left.node === "ArrayAccess" || left.node === "TupleAccess") {
      this.assignableRoot(left)
      const [target, property] =
        left.node === "ArrayAccess"
          ? [(left as Ast.ArrayAccess).array, this.expression((left as Ast.ArrayAccess).property)]
          : [(left as Ast.TupleAccess).tuple, [Op.INTEGER, (left as Ast.TupleAccess).index]]
      return [...this.expression(target), ...property, ...this.expression(node.right), Op.SET_PROPERTY]
    }
    throw new Unsupported(`Cannot assign to ${left.node}`, left)
  }

  /** Changing part of a global would change a copy the program never sees again, so it is refused. */
  private assignableRoot(node: Ast.HogNode) {
    let root = node
    while (root.node === "ArrayAccess" || root.node === "TupleAccess") {
      root = root.node === "ArrayAccess" ? (root as Ast.ArrayAccess).array : (root as Ast.TupleAccess).tuple
    }
    if (root.node === "Field" && this.load(String((root as Ast.Field).chain[0])) === null)
      throw this.notAssignable(root)
  }

  private notAssignable(node: Ast.HogNode) {
    const name = String((node as Ast.Field).chain[0])
    return new Unsupported(
      `Variable \`${name}\` is not declared: globals cannot be assigned (copy into a local with let)`,
      node
    )
  }

  private refuseNonStatement(expr: Ast.HogNode) {
    if (expr.node === "Field") {
      const name = String((expr as Ast.Field).chain[0])
      if (NOT_STATEMENTS.has(name) && this.load(name) === null)
        throw new Unsupported(`\`${name}\` is not supported in Hog`, expr)
    }
    if (expr.node === "Call" && (expr as Ast.Call).name === "for") {
      throw new Unsupported(
        "A for-in loop declares its variables: write `for (let v in items)` or `for (let k, v in items)`",
        expr
      )
    }
  }

  // Scopes and control flow

  /** Compiles `inner` in a new block scope, then drops the block's locals. */
  private scoped(inner: () => Ops): Ops {
    const fn = this.fn
    fn.depth++
    const code = inner()
    fn.depth--
    while (fn.locals.length > 0 && fn.locals[fn.locals.length - 1]!.depth > fn.depth) {
      code.push(fn.locals.pop()!.captured ? Op.CLOSE_UPVALUE : Op.POP)
    }
    return code
  }

  /** A branch or loop body: its own scope even when it is a bare statement such as `let`. */
  private body(node: Ast.HogNode): Ops {
    return node.node === "Block" ? this.statement(node) : this.scoped(() => this.statement(node))
  }

  private forLoop(node: Ast.ForStatement): Ops {
    return this.scoped(() => {
      const init = node.initializer === null ? [] : this.statement(node.initializer)
      const condition = node.condition === null ? [Op.TRUE] : this.expression(node.condition)
      const body = this.body(node.body)
      const increment = node.increment === null ? [] : this.step(node.increment)
      return [...init, ...loop(condition, [...body, ...increment])]
    })
  }

  /** A for loop's increment is an assignment or an expression, whose value is dropped. */
  private step(node: Ast.HogNode): Ops {
    return node.node === "VariableAssignment" ? this.statement(node) : [...this.expression(node), Op.POP]
  }

  /**
   * Iterates by position over `values(x)` (and `keys(x)`), held in hidden locals whose names no
   * program can write.
   */
  private forIn(node: Ast.ForInStatement): Ops {
    return this.scoped(() => {
      const source = this.expression(node.expr)
      this.declare("for source", node)
      const src = resolveLocal(this.fn, "for source")
      const keys = node.keyVar === null ? [] : [Op.GET_LOCAL, src, Op.CALL_GLOBAL, "keys", 1]
      if (node.keyVar !== null) this.declare("for keys", node)
      const values = [Op.GET_LOCAL, src, Op.CALL_GLOBAL, "values", 1]
      this.declare("for values", node)
      const vals = resolveLocal(this.fn, "for values")
      const count = [Op.GET_LOCAL, vals, Op.CALL_GLOBAL, "length", 1]
      this.declare("for count", node)
      const index = [Op.INTEGER, 1]
      this.declare("for index", node)
      const [n, i] = [vals + 1, vals + 2]
      const item = (list: number) => [Op.GET_LOCAL, list, Op.GET_LOCAL, i, Op.GET_PROPERTY]
      const body = this.scoped(() => {
        const k = node.keyVar === null ? [] : item(src + 1)
        if (node.keyVar !== null) this.declare(node.keyVar, node)
        const v = item(vals)
        this.declare(node.valueVar, node)
        return [...k, ...v, ...this.body(node.body)]
      })
      const next = [Op.INTEGER, 1, Op.GET_LOCAL, i, Op.PLUS, Op.SET_LOCAL, i]
      const condition = [Op.GET_LOCAL, n, Op.GET_LOCAL, i, Op.LT_EQ]
      return [...source, ...keys, ...values, ...count, ...index, ...loop(condition, [...body, ...next])]
    })
  }

  /**
   * The VM resumes a throw at the catch code with the stack cut back to where `try` began and the
   * error pushed: it becomes a hidden local. Catches are tried in order by error type; if none
   * matches, the error is thrown again.
   */
  private tryCatch(node: Ast.TryCatchStatement): Ops {
    if (node.finally_stmt !== null) throw new Unsupported("finally is not supported in Hog", node.finally_stmt)
    this.fn.tries++
    const body = this.body(node.try_stmt)
    this.fn.tries--
    const handler = this.scoped(() => {
      this.declare("caught error", node)
      const error = resolveLocal(this.fn, "caught error")
      const rethrow = [Op.GET_LOCAL, error, Op.THROW]
      return node.catches.reduceRight<Ops>((otherwise, [name, type, block]) => {
        const run = this.scoped(() => {
          const bind = name === null ? [] : [Op.GET_LOCAL, error]
          if (name !== null) this.declare(name, block)
          return [...bind, ...this.body(block)]
        })
        if (type === null) return [...run, ...jumpOver(otherwise), ...otherwise]
        const matches = [Op.STRING, type, Op.GET_LOCAL, error, Op.STRING, "type", Op.GET_PROPERTY, Op.EQ]
        return branch(matches, run, otherwise)
      }, rethrow)
    })
    const protectedPart = [...body, Op.POP_TRY, ...jumpOver(handler)]
    // Unlike jumps, TRY's offset counts from its own operand.
    return [Op.TRY, protectedPart.length + 1, ...protectedPart, ...handler]
  }

  // Expressions

  private binary(node: Ast.Operation, ops: Record<string, number>): Ops {
    const op = Object.hasOwn(ops, node.op) ? ops[node.op] : undefined
    if (op === undefined) throw new Unsupported(`Unsupported operator: ${node.op}`, node)
    return [...this.expression(node.right), ...this.expression(node.left), op]
  }

  /** Stops at the first false operand, so later ones may rely on earlier ones. */
  private and(exprs: ReadonlyArray<Ast.HogNode>): Ops {
    const tests = exprs.map((e) => this.expression(e))
    const done = [Op.TRUE, Op.JUMP, 1, Op.FALSE]
    // Each test jumps, when false, to the FALSE at the end.
    return tests.reduceRight<Ops>((rest, test) => [...test, Op.JUMP_IF_FALSE, rest.length - 1, ...rest], done)
  }

  /** Stops at the first true operand. */
  private or(exprs: ReadonlyArray<Ast.HogNode>): Ops {
    const tests = exprs.map((e) => this.expression(e))
    const done = [Op.FALSE, Op.JUMP, 1, Op.TRUE]
    return tests.reduceRight<Ops>((rest, test) => [...test, Op.NOT, Op.JUMP_IF_FALSE, rest.length - 1, ...rest], done)
  }

  private collection(exprs: ReadonlyArray<Ast.HogNode>, op: number): Ops {
    return [...exprs.flatMap((e) => this.expression(e)), op, exprs.length]
  }

  private call(node: Ast.Call): Ops {
    if (node.params != null && node.params.length > 0)
      throw new Unsupported("Parametric function calls are not supported in Hog", node)
    if (node.distinct === true) throw new Unsupported("DISTINCT is not supported in Hog", node)
    const args = node.args
    const variable = this.load(node.name)
    if (variable === null) {
      switch (node.name) {
        case "if":
          if (args.length === 2 || args.length === 3) {
            return branch(
              this.expression(args[0]!),
              this.expression(args[1]!),
              args[2] ? this.expression(args[2]) : [Op.NULL]
            )
          }
          break
        case "multiIf":
          if (args.length >= 3 && args.length % 2 === 1) return this.multiIf(args)
          break
        case "ifNull":
          if (args.length === 2) {
            const fallback = [Op.POP, ...this.expression(args[1]!)]
            return [...this.expression(args[0]!), Op.JUMP_IF_STACK_NOT_NULL, fallback.length, ...fallback]
          }
          break
      }
    }
    const values = args.flatMap((a) => this.expression(a))
    const callee = this.load(node.name)
    return callee === null
      ? [...values, Op.CALL_GLOBAL, node.name, args.length]
      : [...values, ...callee, Op.CALL_LOCAL, args.length]
  }

  /** Evaluates only the chosen branch: conditions in order, then the last argument as the default. */
  private multiIf(args: ReadonlyArray<Ast.HogNode>): Ops {
    const pairs: Array<[Ops, Ops]> = []
    for (let i = 0; i + 1 < args.length; i += 2) pairs.push([this.expression(args[i]!), this.expression(args[i + 1]!)])
    const otherwise = this.expression(args[args.length - 1]!)
    return pairs.reduceRight<Ops>((rest, [condition, value]) => branch(condition, value, rest), otherwise)
  }

  /**
   * A function value: CALLABLE carries the body inline (the VM skips over it), and CLOSURE binds the
   * variables the body uses from enclosing functions.
   */
  private function(name: string, params: ReadonlyArray<string>, body: Ast.HogNode, node: Ast.HogNode): Ops {
    const outer = this.fn
    const fn = new FunctionScope(outer)
    this.fn = fn
    try {
      for (const param of params) this.declare(param, node)
      const code =
        body.node === "Block"
          ? [...this.statements((body as Ast.Block).declarations), Op.NULL, Op.RETURN]
          : [...this.expression(body), Op.RETURN]
      return [
        Op.CALLABLE,
        name,
        params.length,
        fn.upvalues.length,
        code.length,
        ...code,
        Op.CLOSURE,
        fn.upvalues.length,
        ...fn.upvalues.flatMap((u) => [u.isLocal, u.index])
      ]
    } finally {
      this.fn = outer
    }
  }

  private as<T extends Ast.HogNode>(node: Ast.HogNode, kind: string): T {
    if (node.node !== kind) throw new Unsupported(`Expected ${kind}, got ${node.node}`, node)
    return node as T
  }
}
