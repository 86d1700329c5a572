print("journey")
