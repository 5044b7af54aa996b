import { describe, expect, it } from "@effect/vitest"
import fc from "fast-check"
import { GEOIP_FIELDS, geoipEnrich } from "../src/plugins/geoipPlugin.js"
import { iconById, ICONS, searchIcons } from "../src/plugins/icons.js"
import { filterProperties, parsePropertyList } from "../src/plugins/propertyFilter.js"
import { parseUserAgent, USER_AGENT_PROPERTIES, userAgentPlugin } from "../src/plugins/userAgent.js"

const CHROME_MAC =
  "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/121.0.0.0 Safari/537.36"
const IPHONE_SAFARI =
  "Mozilla/5.0 (iPhone; CPU iPhone OS 17_2_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.2 Mobile/15E148 Safari/604.1"

// Expected values are those posthog-js reports for the same strings.
const userAgents: ReadonlyArray<readonly [string, string, Record<string, unknown>]> = [
  [
    "Chrome on Windows",
    "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36",
    { $browser: "Chrome", $browser_version: 120, $os: "Windows", $os_version: "10", $device_type: "Desktop" }
  ],
  [
    "Chrome on a Mac",
    CHROME_MAC,
    { $browser: "Chrome", $browser_version: 121, $os: "Mac OS X", $os_version: "10.15.7", $device_type: "Desktop" }
  ],
  [
    "Chrome on Android (reduced user agent: no OS version)",
    "Mozilla/5.0 (Linux; Android 10; K) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.6099.144 Mobile Safari/537.36",
    { $browser: "Chrome", $browser_version: 120, $os: "Android", $device: "Android", $device_type: "Mobile" }
  ],
  [
    "Chrome on an Android phone",
    "Mozilla/5.0 (Linux; Android 8.0.0; SM-G960F Build/R16NW) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/62.0.3202.84 Mobile Safari/537.36",
    {
      $browser: "Chrome",
      $browser_version: 62,
      $os: "Android",
      $os_version: "8.0.0",
      $device: "Android",
      $device_type: "Mobile"
    }
  ],
  [
    "Chrome on an Android tablet",
    "Mozilla/5.0 (Linux; Android 13; SM-X700) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36",
    { $browser: "Chrome", $browser_version: 120, $os: "Android", $device: "Android Tablet", $device_type: "Tablet" }
  ],
  [
    "Safari on an iPhone",
    IPHONE_SAFARI,
    {
      $browser: "Mobile Safari",
      $browser_version: 17.2,
      $os: "iOS",
      $os_version: "17.2.1",
      $device: "iPhone",
      $device_type: "Mobile"
    }
  ],
  [
    "Safari on an iPad",
    "Mozilla/5.0 (iPad; CPU OS 16_6 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/16.6 Mobile/15E148 Safari/604.1",
    {
      $browser: "Mobile Safari",
      $browser_version: 16.6,
      $os: "iOS",
      $os_version: "16.6.0",
      $device: "iPad",
      $device_type: "Tablet"
    }
  ],
  [
    "Safari on a Mac",
    "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.2.1 Safari/605.1.15",
    { $browser: "Safari", $browser_version: 17.2, $os: "Mac OS X", $os_version: "10.15.7", $device_type: "Desktop" }
  ],
  [
    "Firefox on Windows",
    "Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:121.0) Gecko/20100101 Firefox/121.0",
    { $browser: "Firefox", $browser_version: 121, $os: "Windows", $os_version: "10", $device_type: "Desktop" }
  ],
  [
    "Firefox on a Mac",
    "Mozilla/5.0 (Macintosh; Intel Mac OS X 10.15; rv:121.0) Gecko/20100101 Firefox/121.0",
    { $browser: "Firefox", $browser_version: 121, $os: "Mac OS X", $os_version: "10.15.0", $device_type: "Desktop" }
  ],
  [
    "Firefox on Linux",
    "Mozilla/5.0 (X11; Ubuntu; Linux x86_64; rv:109.0) Gecko/20100101 Firefox/115.0",
    { $browser: "Firefox", $browser_version: 115, $os: "Linux", $device_type: "Desktop" }
  ],
  [
    "Edge",
    "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36 Edg/120.0.2210.91",
    { $browser: "Microsoft Edge", $browser_version: 120, $os: "Windows", $os_version: "10", $device_type: "Desktop" }
  ],
  [
    "Opera",
    "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36 OPR/106.0.0.0",
    { $browser: "Opera", $browser_version: 106, $os: "Windows", $os_version: "10", $device_type: "Desktop" }
  ],
  [
    "Samsung Internet",
    "Mozilla/5.0 (Linux; Android 13; SAMSUNG SM-S911B) AppleWebKit/537.36 (KHTML, like Gecko) SamsungBrowser/23.0 Chrome/115.0.0.0 Mobile Safari/537.36",
    { $browser: "Samsung Internet", $browser_version: 23, $os: "Android", $device: "Android", $device_type: "Mobile" }
  ],
  [
    "Chrome on iOS",
    "Mozilla/5.0 (iPhone; CPU iPhone OS 17_2 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) CriOS/120.0.6099.119 Mobile/15E148 Safari/604.1",
    {
      $browser: "Chrome iOS",
      $browser_version: 120,
      $os: "iOS",
      $os_version: "17.2.0",
      $device: "iPhone",
      $device_type: "Mobile"
    }
  ],
  [
    "Firefox on iOS",
    "Mozilla/5.0 (iPhone; CPU iPhone OS 17_2 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) FxiOS/121.0 Mobile/15E148 Safari/605.1.15",
    {
      $browser: "Firefox iOS",
      $browser_version: 121,
      $os: "iOS",
      $os_version: "17.2.0",
      $device: "iPhone",
      $device_type: "Mobile"
    }
  ],
  [
    "Facebook in-app on iOS",
    "Mozilla/5.0 (iPhone; CPU iPhone OS 16_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 [FBAN/FBIOS;FBDV/iPhone14,5;FBMD/iPhone;FBSN/iOS;FBSV/16.5;FBSS/3;FBID/phone;FBLC/en_US;FBOP/5]",
    { $browser: "Facebook Mobile", $os: "iOS", $os_version: "16.5.0", $device: "iPhone", $device_type: "Mobile" }
  ],
  [
    "Internet Explorer 11",
    "Mozilla/5.0 (Windows NT 6.1; WOW64; Trident/7.0; rv:11.0) like Gecko",
    { $browser: "Internet Explorer", $browser_version: 11, $os: "Windows", $os_version: "7", $device_type: "Desktop" }
  ],
  [
    "Chrome on a Chromebook",
    "Mozilla/5.0 (X11; CrOS x86_64 14541.0.0) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36",
    { $browser: "Chrome", $browser_version: 120, $os: "Chrome OS", $device_type: "Desktop" }
  ],
  ["curl", "curl/8.4.0", {}],
  ["Googlebot", "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)", {}],
  ["an empty string", "", {}]
]

const DEVICE_TYPES = ["Desktop", "Mobile", "Tablet", "Console", "Wearable"]
const BROWSERS = [
  "Opera Mini",
  "Opera",
  "BlackBerry",
  "Internet Explorer Mobile",
  "Oculus Browser",
  "Samsung Internet",
  "Microsoft Edge",
  "Vivaldi",
  "Yandex",
  "Whale",
  "DuckDuckGo",
  "Facebook Mobile",
  "UC Browser",
  "Chrome iOS",
  "Chrome",
  "Android Mobile",
  "Firefox iOS",
  "Konqueror",
  "Mobile Safari",
  "Safari",
  "Firefox",
  "Internet Explorer"
]
const OPERATING_SYSTEMS = [
  "Xbox",
  "Nintendo",
  "PlayStation",
  "BlackBerry",
  "Windows Phone",
  "Windows Mobile",
  "Windows",
  "iOS",
  "watchOS",
  "Android",
  "Mac OS X",
  "Chrome OS",
  "Linux"
]

// Strings built from user-agent fragments reach far more rules than uniformly random text.
const uaFragment = fc.constantFrom(
  "Mozilla/5.0 ",
  "(Windows NT 10.0; Win64; x64) ",
  "(Macintosh; Intel Mac OS X 10_15_7) ",
  "(iPhone; CPU iPhone OS 17_2 like Mac OS X) ",
  "(iPad; CPU OS 16_6 like Mac OS X) ",
  "(Linux; Android 13; SM-X700) ",
  "Android 4.4.2 ",
  "Mobile ",
  "Safari/537.36 ",
  "Chrome/120.0 ",
  "Edg/120.0 ",
  "OPR/106 ",
  "Mini ",
  "SamsungBrowser/23.0 ",
  "CriOS/120 ",
  "FxiOS/121 ",
  "Firefox/121.0 ",
  "Gecko ",
  "Version/17.2 ",
  "FBIOS ",
  "Trident/7.0; rv:11.0 ",
  "MSIE 9.0 ",
  "Xbox; Xbox One) ",
  "Nintendo Switch ",
  "PlayStation 5 ",
  "BB10 ",
  "Tablet ",
  "Watch4,3/5.3.8 ",
  "CrOS ",
  "X11; Linux ",
  "Kindle ",
  "KFTHWI) ",
  "Konqueror/5 ",
  "curl/8 ",
  "ARM ",
  "Windows Phone ",
  "IEMobile "
)
const userAgentish = fc.oneof(
  fc.string(),
  fc.array(uaFragment, { maxLength: 8 }).map((parts) => parts.join(""))
)

describe("parseUserAgent", () => {
  for (const [label, ua, expected] of userAgents) {
    it(`reads ${label}`, () => {
      expect(parseUserAgent(ua)).toEqual(expected)
    })
  }

  it("never throws and only returns the documented keys and values", () => {
    fc.assert(
      fc.property(userAgentish, (ua) => {
        const details = parseUserAgent(ua)
        for (const key of Object.keys(details)) expect(USER_AGENT_PROPERTIES).toContain(key)
        if (details.$browser !== undefined) expect(BROWSERS).toContain(details.$browser)
        if (details.$browser_version !== undefined) expect(Number.isFinite(details.$browser_version)).toBe(true)
        if (details.$os !== undefined) expect(OPERATING_SYSTEMS).toContain(details.$os)
        if (details.$os_version !== undefined && details.$os !== "Xbox") {
          expect(details.$os_version).toMatch(/^(\d+\.\d+(\.\d+)?|NT 3\.11|NT 4\.0|2000|XP|Vista|7|8|8\.1|10|RT)$/)
        }
        if (details.$os_version !== undefined) expect(details.$os).toBeDefined()
        // Something was recognised whenever anything is reported, and then the device type always is.
        if (Object.keys(details).length > 0) {
          expect(details.$browser !== undefined || details.$os !== undefined).toBe(true)
          expect(DEVICE_TYPES).toContain(details.$device_type)
        }
      }),
      { numRuns: 2000 }
    )
  })
})

describe("userAgentPlugin", () => {
  const off = { overrideUserAgentDetails: false }

  it("adds the parsed details from $raw_user_agent, keeping it", () => {
    const out = userAgentPlugin({ $raw_user_agent: IPHONE_SAFARI, plan: "pro" }, off)
    expect(out).toEqual({ $raw_user_agent: IPHONE_SAFARI, plan: "pro", ...parseUserAgent(IPHONE_SAFARI) })
  })

  it("reads the server SDKs' $useragent / $user_agent, which it consumes", () => {
    for (const key of ["$useragent", "$user_agent", "$user-agent"]) {
      const out = userAgentPlugin({ [key]: CHROME_MAC }, off)
      expect(out).toEqual(parseUserAgent(CHROME_MAC))
    }
  })

  it("leaves events that already describe the browser alone, unless told to override", () => {
    const properties = { $raw_user_agent: CHROME_MAC, $browser: "Safari", $os_version: "14.1.0" }
    expect(userAgentPlugin(properties, off)).toEqual(properties)
    // Override replaces the old description entirely: the old $os_version does not survive beside the new OS.
    expect(
      userAgentPlugin(
        { $raw_user_agent: IPHONE_SAFARI, $browser: "Chrome", $os_version: "10.15.7" },
        { overrideUserAgentDetails: true }
      )
    ).toEqual({ $raw_user_agent: IPHONE_SAFARI, ...parseUserAgent(IPHONE_SAFARI) })
  })

  it("reads only segment_userAgent in Segment mode", () => {
    const segment = { overrideUserAgentDetails: false, enableSegmentAnalyticsJs: true }
    expect(userAgentPlugin({ $useragent: CHROME_MAC }, segment)).toEqual({ $useragent: CHROME_MAC })
    expect(userAgentPlugin({ segment_userAgent: CHROME_MAC }, segment)).toEqual({
      segment_userAgent: CHROME_MAC,
      ...parseUserAgent(CHROME_MAC)
    })
  })

  it("returns a new object and leaves garbage unchanged, never throwing", () => {
    const input = { $raw_user_agent: CHROME_MAC }
    const out = userAgentPlugin(input, off)
    expect(out).not.toBe(input)
    expect(input).toEqual({ $raw_user_agent: CHROME_MAC })
    fc.assert(
      fc.property(
        fc.dictionary(fc.constantFrom("$raw_user_agent", "$useragent", "$browser", "x"), fc.jsonValue()),
        fc.boolean(),
        (properties, override) => {
          const before = structuredClone(properties)
          const result = userAgentPlugin(properties, { overrideUserAgentDetails: override })
          expect(properties).toEqual(before)
          if (!Object.values(properties).some((value) => typeof value === "string" && value.trim() !== ""))
            expect(result).toEqual(properties)
        }
      )
    )
    expect(userAgentPlugin({ $raw_user_agent: "curl/8.4.0", $useragent: 42 }, off)).toEqual({
      $raw_user_agent: "curl/8.4.0",
      $useragent: 42
    })
  })
})

describe("property filter", () => {
  it("parses the comma separated setting", () => {
    expect(parsePropertyList(" email, $set.phone ,,  ,name ")).toEqual(["email", "$set.phone", "name"])
    expect(parsePropertyList("")).toEqual([])
  })

  it("removes top-level names only, and dotted paths inside objects, as PostHog's plugin does", () => {
    const properties = {
      name: "Mr. Hog",
      gender: "male",
      age: 12,
      $set: { age: 35, pet: "dog", gender: "female" },
      foo: { bar: { baz: { one: "one", two: "two" } } }
    }
    const out = filterProperties(properties, [
      "gender",
      "$set.age",
      "foo.bar.baz.one",
      "missing",
      "$set.missing",
      "name.length",
      "no.such"
    ])
    expect(out).toEqual({
      name: "Mr. Hog",
      age: 12,
      $set: { pet: "dog", gender: "female" },
      foo: { bar: { baz: { two: "two" } } }
    })
    // Nothing shared is mutated.
    expect(properties.$set).toEqual({ age: 35, pet: "dog", gender: "female" })
    expect(properties.foo.bar.baz).toEqual({ one: "one", two: "two" })
  })

  const plainKey = fc.string({ maxLength: 6 }).filter((key) => !key.includes("."))

  it("removes exactly the listed names and changes nothing else", () => {
    fc.assert(
      fc.property(
        fc.dictionary(plainKey, fc.jsonValue({ maxDepth: 2 })),
        fc.array(plainKey, { maxLength: 6 }),
        (properties, names) => {
          const out = filterProperties(properties, names)
          const expected = Object.keys(properties).filter((key) => !names.includes(key))
          expect(Object.keys(out).sort()).toEqual(expected.sort())
          for (const key of expected) expect(out[key]).toBe(properties[key])
        }
      )
    )
  })

  it("removes exactly the nested key a dotted path names", () => {
    fc.assert(
      fc.property(plainKey, fc.dictionary(plainKey, fc.jsonValue({ maxDepth: 1 })), plainKey, (outer, inner, name) => {
        const properties = { [outer]: inner, other: 1 }
        const out = filterProperties(properties, [`${outer}.${name}`])
        const keptInner = Object.fromEntries(Object.entries(inner).filter(([key]) => key !== name))
        expect(out).toEqual(outer === "other" ? properties : { [outer]: keptInner, other: 1 })
        expect(properties[outer]).toBe(inner)
      })
    )
  })
})

describe("geoipEnrich", () => {
  const london = { $geoip_city_name: "London", $geoip_country_code: "GB", $geoip_latitude: 51.5 }
  const lookup = (ip: string) => (ip === "81.2.69.142" ? london : {})
  const nulls = (prefix: string) => Object.fromEntries(GEOIP_FIELDS.map((field) => [`${prefix}${field}`, null]))

  it("adds the location to the event, $set and $set_once", () => {
    const out = geoipEnrich(
      { $ip: "81.2.69.142", $set: { email: "a@x.io", $geoip_time_zone: "Europe/London" }, $set_once: { plan: "pro" } },
      lookup
    )
    expect(out).toEqual({
      $ip: "81.2.69.142",
      ...london,
      $set: { ...nulls("$geoip_"), $geoip_time_zone: "Europe/London", email: "a@x.io", ...london },
      $set_once: {
        ...nulls("$initial_geoip_"),
        plan: "pro",
        $initial_geoip_city_name: "London",
        $initial_geoip_country_code: "GB",
        $initial_geoip_latitude: 51.5
      }
    })
  })

  it("passes the event's own ip to the lookup and keeps only $geoip_* answers", () => {
    const asked: Array<string> = []
    const out = geoipEnrich({ $ip: "203.0.113.9" }, (ip) => {
      asked.push(ip)
      return { $geoip_country_code: "NL", country: "NL", $geoip_postal_code: undefined }
    })
    expect(asked).toEqual(["203.0.113.9"])
    expect(out["$geoip_country_code"]).toBe("NL")
    expect(out).not.toHaveProperty("country")
    expect(out).not.toHaveProperty("$geoip_postal_code")
    expect(out["$set_once"]).toMatchObject({ $initial_geoip_country_code: "NL", $initial_geoip_postal_code: null })
  })

  it("skips disabled events, events without an ip and unknown addresses", () => {
    for (const properties of [
      { $ip: "81.2.69.142", $geoip_disable: true },
      { $ip: "" },
      { $ip: null },
      {},
      { $ip: "10.0.0.1" }
    ]) {
      const out = geoipEnrich(properties, lookup)
      expect(out).toEqual(properties)
      expect(out).not.toBe(properties)
    }
  })
})

describe("icons", () => {
  it("ships the picker's icons with unique ids, each a well-formed SVG", () => {
    expect(ICONS.length).toBeGreaterThanOrEqual(12)
    expect(new Set(ICONS.map((icon) => icon.id)).size).toBe(ICONS.length)
    for (const icon of ICONS) {
      expect(icon.svg.startsWith("<svg ")).toBe(true)
      expect(icon.svg).toContain(`xmlns="http://www.w3.org/2000/svg"`)
      expect(icon.svg).toMatch(/viewBox="0 0 24 24"/)
      expect(icon.svg.endsWith("</svg>")).toBe(true)
      // Tags balance: every opening tag is closed or self-closing, and <svg> is the single root.
      const stack: Array<string> = []
      const tags = [...icon.svg.matchAll(/<(\/?)([a-z]+)((?:\s+[a-zA-Z:-]+="[^"<>]*")*)\s*(\/?)>/g)]
      expect(tags.map((tag) => tag[0]).join("")).toBe(icon.svg.replace(/>[^<]*</g, "><"))
      tags.forEach((tag, index) => {
        const [, closing, name, , selfClosing] = tag
        if (closing === "/") expect(stack.pop()).toBe(name)
        else if (selfClosing !== "/") {
          if (index > 0) expect(stack.length).toBeGreaterThan(0)
          stack.push(name!)
        }
      })
      expect(stack).toEqual([])
      for (const [, d] of icon.svg.matchAll(/ d="([^"]*)"/g)) expect(d).toMatch(/^[MmLlHhVvCcSsQqTtAaZz0-9 .,-]+$/)
    }
  })

  it("searches ids, names and keywords ignoring case", () => {
    expect(searchIcons("WEBHOOK").map((icon) => icon.id)).toEqual(["webhook"])
    expect(
      searchIcons("notif")
        .map((icon) => icon.id)
        .sort()
    ).toEqual(["bell", "chat"])
    expect(searchIcons("  Request ").map((icon) => icon.id)).toEqual(["http"])
    expect(searchIcons("no such thing")).toEqual([])
    expect(searchIcons("")).toEqual([])
    expect(searchIcons("   ")).toEqual([])
    fc.assert(
      fc.property(fc.string({ minLength: 1, maxLength: 4 }), (query) => {
        const needle = query.trim().toLowerCase()
        for (const icon of searchIcons(query)) {
          expect([icon.id, icon.name, ...icon.keywords].some((text) => text.toLowerCase().includes(needle))).toBe(true)
        }
      })
    )
  })

  it("finds icons by id", () => {
    for (const icon of ICONS) expect(iconById(icon.id)).toBe(icon)
    expect(iconById("Webhook")).toBeUndefined()
  })
})
