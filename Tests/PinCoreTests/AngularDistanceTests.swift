import XCTest
@testable import PinCore

/// Hand-worked values: the law of cosines evaluated with Python's math module, R = 6371 km.
final class AngularDistanceTests: XCTestCase {
    func c(_ lat: Double, _ lon: Double) -> Coordinate { Coordinate(latitude: lat, longitude: lon) }

    func testParisLondon() {
        // Paris 48.8566 N 2.3522 E, London 51.5074 N 0.1278 W: 343.556 km.
        let km = AngularDistance.radians(c(48.8566, 2.3522), c(51.5074, -0.1278)) * 6371
        XCTAssertEqual(km, 343.556, accuracy: 0.01)
        XCTAssertEqual(AngularDistance.kilometres(c(48.8566, 2.3522), c(51.5074, -0.1278)), 343.556, accuracy: 0.01)
    }

    func testSamePointIsZeroNotNaN() {
        // For identical points the cosine sum can exceed 1 by an ulp; acos would give NaN.
        for lat in stride(from: -89.0, through: 89.0, by: 7.3) {
            for lon in stride(from: -179.0, through: 179.0, by: 13.7) {
                let angle = AngularDistance.radians(c(lat, lon), c(lat, lon))
                XCTAssertFalse(angle.isNaN)
                XCTAssertLessThan(angle, 3e-8) // √(2ε): the smallest angle the cosine form resolves
            }
        }
    }

    func testAntipodes() {
        XCTAssertEqual(AngularDistance.radians(c(10, 20), c(-10, -160)), .pi, accuracy: 1e-7)
        XCTAssertEqual(AngularDistance.radians(c(90, 0), c(-90, 0)), .pi, accuracy: 1e-7)
    }

    func testAcrossTheAntimeridian() {
        // 179.99 E and 179.99 W on the equator: 0.02 degrees of arc = 2.2239 km, not 40,000 km.
        XCTAssertEqual(AngularDistance.radians(c(0, 179.99), c(0, -179.99)) * 6371, 2.2239, accuracy: 0.001)
    }

    func testNearThePole() {
        // 89.99 N at longitudes 0 and 180: 0.02 degrees over the pole = 2.2239 km.
        XCTAssertEqual(AngularDistance.radians(c(89.99, 0), c(89.99, 180)) * 6371, 2.2239, accuracy: 0.001)
    }

    func testAppThresholdIsTheAppsConstant() {
        XCTAssertEqual(AngularDistance.appThreshold, 0.0007848)
        XCTAssertNotEqual(AngularDistance.appThreshold, 5.0 / 6371.0)
        // 0.0007848 rad = 0.0449657 degrees of arc = 4.99996 km on the app's sphere.
        XCTAssertEqual(AngularDistance.appThreshold * 180 / .pi, 0.0449657, accuracy: 1e-7)
        XCTAssertEqual(AngularDistance.appThreshold * 6371, 4.99996, accuracy: 1e-5)
        XCTAssertEqual(AngularDistance.angle(forKilometres: 5), 0.00078480615, accuracy: 1e-11)
    }

    func testAngleAlongAMeridianEqualsLatitudeDifference() {
        // Along a meridian the angle is exactly the latitude difference.
        let a = c(45, 7), b = c(45 + 0.0007847 * 180 / .pi, 7)
        XCTAssertEqual(AngularDistance.radians(a, b), 0.0007847, accuracy: 1e-10)
    }
}
