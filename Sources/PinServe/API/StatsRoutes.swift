import Foundation
import PinApp
import PinCore

/// The Statistics tab's numbers: the same use case and the same object as `pins stats --json`.
extension AppBackend {
    /// GET /api/stats. Before the first pin there is no database: the numbers of none.
    func stats() throws -> HTTPResponse {
        guard app.databaseExists else { return .json(200, StatisticsValues().jsonObject) }
        // From the pins kept (brought to the database's version), as the map data is.
        return .json(200, try app.statistics(of: try storedPins().map(\.stored)).jsonObject)
    }
}
