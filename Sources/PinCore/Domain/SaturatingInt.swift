extension Int {
    /// `value` toward zero, clamped to `Int.min...Int.max`, NaN as 0: a conversion that is total.
    /// `Int(_: Double)` traps on NaN, infinities and anything beyond ±9.2e18, so a Double that
    /// came from input (a track's time, a file's number, an option) goes through this instead.
    public init(saturating value: Double) {
        if value.isNaN {
            self = 0
        } else if value >= 9_223_372_036_854_775_807.0 {  // 2^63, the first Double above Int.max
            self = .max
        } else if value <= -9_223_372_036_854_775_808.0 {
            self = .min
        } else {
            self = Int(value)
        }
    }
}
