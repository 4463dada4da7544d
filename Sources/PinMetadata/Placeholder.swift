import PinCore
