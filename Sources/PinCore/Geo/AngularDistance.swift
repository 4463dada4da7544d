import Foundation

/// The app's time rule, beside its distance rule (`AngularDistance.appThreshold`): a photo taken
/// less than `appMinimum` seconds after the previously accepted photo is skipped (`interval`);
/// exactly `appMinimum` is accepted. `--min-interval` changes it.
public enum CaptureInterval {
    public static let appMinimum: Double = 60
}

/// The app's distance: the angle between two positions seen from the Earth's centre,
/// by the spherical law of cosines (docs/formats.md section 8):
///     cos θ = cos φ1 cos φ2 cos(λ1 − λ2) + sin φ1 sin φ2
public enum AngularDistance {
    /// The app's constant: 5 km on a 6371 km sphere, rounded as the app rounds it.
    /// Not recomputed as 5 / 6371 (= 0.00078480615…) on purpose.
    public static let appThreshold: Double = 0.0007848
    /// Mean Earth radius the app uses to turn kilometres into an angle and back.
    public static let earthRadiusKm: Double = 6371

    /// Angle for a distance in km on the app's sphere (`--min-distance-km`).
    public static func angle(forKilometres km: Double) -> Double { km / earthRadiusKm }

    /// cos θ, clamped to [−1, 1]: for identical points the sum can exceed 1 by an ulp and
    /// acos would return NaN.
    @inline(__always)
    static func cosine(_ a: Coordinate, _ b: Coordinate) -> Double {
        let phi1 = a.latitude * .pi / 180, phi2 = b.latitude * .pi / 180
        let dLambda = (a.longitude - b.longitude) * .pi / 180
        let sum = cos(phi1) * cos(phi2) * cos(dLambda) + sin(phi1) * sin(phi2)
        return min(1, max(-1, sum))
    }

    /// θ in radians by the law of cosines, as the app computes it: what the import rule compares.
    @inline(__always)
    static func radians(_ a: Coordinate, _ b: Coordinate) -> Double {
        acos(cosine(a, b))
    }

    /// θ by the haversine form: accurate at small distances too; used for printed distances.
    static func haversineRadians(_ a: Coordinate, _ b: Coordinate) -> Double {
        let phi1 = a.latitude * .pi / 180, phi2 = b.latitude * .pi / 180
        let dPhi = phi2 - phi1
        let dLambda = (b.longitude - a.longitude) * .pi / 180
        let h = sin(dPhi / 2) * sin(dPhi / 2) + cos(phi1) * cos(phi2) * sin(dLambda / 2) * sin(dLambda / 2)
        return 2 * asin(min(1, sqrt(h)))
    }

    /// Kilometres on the app's sphere (haversine), for reports.
    public static func kilometres(_ a: Coordinate, _ b: Coordinate) -> Double {
        haversineRadians(a, b) * earthRadiusKm
    }
}
